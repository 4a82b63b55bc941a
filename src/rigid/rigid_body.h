// rigid_body.h - a solid that moves with the water: an obstacle made
// dynamic. Its mass properties, its velocities, the points of its surface
// that keep it out of walls, and its motion over one substep (gravity, the
// water's impulses measured from the particles' side, contacts with planes,
// with the kinematic obstacles and with the other bodies). Host code in double precision: a body is a
// handful of numbers, integrated between the substeps that the backends run.
#pragma once

#include <cstdint>
#include <vector>

#include "core/config.h"
#include "core/obstacle.h"
#include "core/sdf_grid.h"

namespace pbf {

// What a body weighs and how it turns: its mass [kg] (> 0), its centre of
// mass in its own frame [m] and its inertia tensor about that centre in its
// own axes [kg m^2] (row-major, symmetric positive definite).
struct RigidMass {
  double mass;
  double centre[3];
  double inertia[9];
};

// Where a body is: a unit quaternion (x, y, z, w) and the translation of its
// frame's origin [m].
struct RigidPose {
  double q[4];
  double t[3];
};

// The most surface points a body keeps for its contacts.
constexpr size_t kMaxHullPoints = 8192;

// The fastest a body moves [m/s] and turns [rad/s]: faster velocities are
// refused, and the water or the contacts never make it faster (as PhysX
// limits its bodies' velocities), so that its pose stays finite whatever
// its mass and inertia.
constexpr double kMaxBodySpeed = 1000.0;
constexpr double kMaxBodySpin = 1000.0;

// The most pieces a substep's motion is swept in (rigid_advance()).
constexpr int kMaxSweepPieces = 64;

// The most settling rounds (rigid_settle()) over the bodies after they
// advance, where two or more of them touch.
constexpr int kSettleRounds = 16;

// Names no body: a contact with a plane or a kinematic obstacle.
constexpr uint32_t kNoBody = 0xffffffffu;

// A surface's Coulomb friction and restitution (0 .. 1) in contacts.
struct RigidMaterial {
  double friction = 0.0;
  double restitution = 0.0;
};

// The friction and restitution of a contact between surfaces a and b: the
// geometric mean of their frictions (a frictionless surface on either side
// slips; two equal ones keep theirs exactly) and the larger restitution.
RigidMaterial rigid_contact_material(const RigidMaterial& a, const RigidMaterial& b);

// One touching hull point in a contact solve: the friction and restitution
// of the two surfaces that touch there, where it is from the centre, the
// normal out of the surface, two tangents, the normal speed it is to leave
// with (its bounce: that restitution times the speed it arrived with, before
// the water's impulse of the substep) and the impulses so far; and where the
// surface is another body's (`other`, kNoBody: a plane or a kinematic
// obstacle), where the point is from that body's centre; where it is a
// kinematic obstacle's, that surface's velocity there (`surface`; zero for a
// plane or one at rest).
struct RigidContact {
  double friction;  // the two surfaces' (rigid_contact_material())
  double restitution;
  double arm[3];
  double normal[3];
  double tangent[2][3];
  double surface[3];
  double bounce;
  double pushed;
  double rubbed[2];
  uint32_t other;
  double other_arm[3];
};

struct RigidBody {
  RigidMass mass;
  RigidMaterial material;      // its surface's
  double inverse_inertia[9];   // about the centre, body axes
  double velocity[3];          // of the centre of mass, world axes [m/s]
  double angular_velocity[3];  // world axes [rad/s]
  std::vector<Vec3> hull;      // points on its surface, in its own frame [m]
  // Per hull point: the unit normal out of the body where its surface is flat there (its field's gradient
  // a distance's, of length 1), zero at an edge or a corner (own frame).
  std::vector<Vec3> hull_normal;
  // Per hull point set from outside onto a convex edge or corner (make_rigid_body()): the unit direction
  // out of the body there, between its faces' normals; zero for the rest. Such a point touches only where
  // the surface it meets is flat and faces it; on another solid's edge the points from inside, a cell and
  // a half short of the edge, take the contact.
  std::vector<Vec3> hull_crease;
  float contact_slop;          // how near a surface a hull point counts as touching [m]
  double sweep_step;           // the longest piece of a substep's motion, 2 cells of its field [m]
  double reach;                // the farthest hull point from the centre of mass [m]
  std::vector<RigidContact> contacts;  // scratch of rigid_respond(), room for every hull point
};

// A body of mass properties `m` at rest, its hull taken from its field: the
// grid nodes inside the solid next to one outside, set onto the surface, and
// the nodes outside that touch the inside only across an edge or a corner of
// their cell, set onto the solid's convex edges and corners (hull_crease);
// every k-th of them, when there are more than kMaxHullPoints. Throws
// Error(InvalidArgument) when the field holds no surface or the inertia is
// not positive definite.
RigidBody make_rigid_body(const RigidMass& m, const SdfGridView& field);

// A solid a body must stay out of: a field placed at a pose (a kinematic
// obstacle's at the end of the substep, or another body's where it is now),
// the body it is (kNoBody: a kinematic obstacle; else its index among the
// bodies rigid_respond_together() is given), and the box in world axes about
// its field's grid, outside which no point touches it (`lo`, `hi`; made by
// rigid_contact_solid()). A kinematic obstacle that moves over the substep
// also keeps where it was at the substep's start (`from`) and 1 / the
// substep's length (`inverse_h`, 0: it stands still), which give its
// surface's velocity at a point (rigid_surface_velocity()).
struct RigidContactSolid {
  const SdfGridView* field;
  RigidTransform pose;
  uint32_t body = kNoBody;
  Vec3 lo{0.0f, 0.0f, 0.0f}, hi{0.0f, 0.0f, 0.0f};
  RigidTransform from{};
  double inverse_h = 0.0;
  RigidMaterial material{};  // a kinematic solid's surface (a body's is its RigidBody::material)
};

// Body `index` (field `field`, at `pose`) as a solid for the others, with
// its grid's box in world axes; the second form for a kinematic obstacle's
// transform (index kNoBody) standing still, the third for one that moves
// from `from` to `to` over a substep of h seconds (still, as the second
// form, where the two are the same).
RigidContactSolid rigid_contact_solid(const RigidPose& pose, const SdfGridView* field, uint32_t index);
RigidContactSolid rigid_contact_solid(const RigidTransform& pose, const SdfGridView* field, uint32_t index);
RigidContactSolid rigid_contact_solid(const RigidTransform& from, const RigidTransform& to, double h,
                                      const SdfGridView* field);

// The velocity [m/s] of a kinematic solid's surface at world point p, over
// its substep: where p moved from its place at the start, divided by the
// substep's length; zero for a solid standing still or a body (whose
// velocity is its own).
Vec3 rigid_surface_velocity(const RigidContactSolid& solid, Vec3 p);

// What a body bumps into: planes (n . x + offset >= 0 is inside) and solids,
// and the planes' surface: their Coulomb friction and restitution (a solid's
// is its own, RigidContactSolid::material or its body's). A body never bumps
// into the solid that is itself (`self`, kNoBody: none of them is). Its
// contacts bounce with the restitution of the two surfaces that touch
// (rigid_contact_material(); 0 .. 1: the normal speed a point leaves with,
// over the speed it arrived with), where it arrived faster than
// `resting_speed` [m/s]: slower contacts are resting ones, which keep no
// bounce (a body at rest on the floor arrives each substep with the speed
// the substep's gravity gave it).
struct RigidSurroundings {
  const Plane* planes;
  uint32_t plane_count;
  const RigidContactSolid* solids;
  uint32_t solid_count;
  double friction;
  uint32_t self = kNoBody;
  double restitution = 0.0;
  double resting_speed = 0.0;
  // Per body (by its index): its place in the order in which the bodies are moved out of each other, lowest
  // first; a body moved out of the surroundings leaves out those of a higher place (null: none). Bodies
  // stacked under gravity each rest on the ones beneath: the bottom one, held by the floor, is not pushed
  // down into it out of the one above (down along that one's slightly tilted face, then straight back up
  // out of the floor, the bottom crate of a stack walked sideways out from under it).
  const uint32_t* rank = nullptr;
};

// A substep of a body, h seconds, around the water's part: rigid_advance()
// adds gravity over h to its velocity and moves it with its velocities, and
// where its hull then lies inside a plane or a solid, out along the deepest
// contact's normal (its velocities untouched: rigid_respond() takes out their
// part into the contact). Then the water runs the substep around it.
void rigid_advance(RigidBody& body, RigidPose& pose, Vec3 gravity, double h, const RigidSurroundings& around);

// Moves a body where it is out of the surroundings along the deepest
// contact's normal, as rigid_advance() ends (its velocities untouched);
// returns how far its centre moved [m]. Bodies that touch each other are
// pushed out of each other one at a time: settling rounds over all of them
// (ObstaclePath::advance()) let a stack find its place.
double rigid_settle(const RigidBody& body, RigidPose& pose, const RigidSurroundings& around);

// How a body moved in a yield: its centre's shift [m], the angle it turned
// through (axis times radians, world axes) and its centre before it moved
// [m], so that the point at x moved by shift + turn x (x - centre).
struct RigidYield {
  double shift[3];
  double turn[3];
  double centre[3];
};

// Within the water's part: the body yields to the impulse [N s] (world axes)
// and its moment about the world's origin [N m s] that the water gave it
// since the last yield, moved by the velocity changes they make
// (rigid_respond()) carried over the substep's h seconds, so that the
// water's next iterations meet it where it goes (docs/PHYSICS.md §13). Its
// velocities are not changed. With `added` (null: none), the added mass of
// the water whose constraints pushed it (ObstaclePush::added, in kg, kg m
// and kg m^2 about the world's origin), it moves as the body's part of the
// joint solve of those constraints and its own motion: (M + A) times its
// motion is h times the impulse and its moment, so that a body far lighter
// than the water it pushes moves as far as the water lets it rather than as
// far as its own mass would. A yield moves the body at most one sweep step
// (translation plus the hull's reach turned), then out of the surroundings
// as rigid_advance() does, so that no impulse carries it through a wall.
// Returns how far it moved before it was set out of the surroundings.
//
// `before` (null: none) makes it another round of the same yield, a Newton
// step on the balance of the body's momentum and the water's pushes: the
// impulse and moment are then all that the water gave since the yield's
// first round (with what it gave back, BodySubstep), `added` the added mass
// of the constraints still pushing, `before` what the rounds so far moved
// the body; it moves by (M + A)^-1 (h j - M before) further (likewise for
// the turn), and returns the rounds' total about the first round's centre.
RigidYield rigid_yield(const RigidBody& body, RigidPose& pose, double h, const double impulse[3],
                       const double moment[3], const double added[kSymmetric6], const RigidYield* before,
                       const RigidSurroundings& around);

// The end of the substep: the water's impulse [N s] (world axes) and its
// moment about the world's origin [N m s] over the whole substep, the
// gyroscopic term, then the contacts where `pose` (the substep's end)
// touches the surroundings: impulses sequential over the touching hull
// points, each point leaving with its bounce (inelastic at the default
// restitution 0), with Coulomb friction.
void rigid_respond(RigidBody& body, const RigidPose& pose, double h, const double impulse[3], const double moment[3],
                   const RigidSurroundings& around);

// One body at the end of a substep, for the respond of several at once: its
// pose and the water's impulse and moment over the substep (as
// rigid_respond() takes them). `body` null: no body (a kinematic obstacle's
// place in the list).
struct RigidBodyEnd {
  RigidBody* body;
  const RigidPose* pose;
  const double* impulse;
  const double* moment;
};

// rigid_respond() for `count` bodies at once, whose contacts with each other
// are solved together with their contacts with the surroundings: `around`
// lists each of them as a solid at its pose, named by its index in `bodies`
// (RigidContactSolid::body). A hull point of one inside another's surface
// is a contact of the two: its impulses act on both, equal and opposite, so
// that the bodies' momentum is kept, and the sweeps go over every body's
// contacts in the order of `bodies`. With one body the same as
// rigid_respond().
void rigid_respond_together(RigidBodyEnd* bodies, uint32_t count, double h, const RigidSurroundings& around);

// Where a body's centre of mass is in the world [m], at `pose`.
void rigid_centre(const RigidBody& body, const RigidPose& pose, double out[3]);

// How far a body's hull reaches along each world axis [m], turned by the
// unit quaternion q (x, y, z, w): the room it needs between two walls.
void rigid_extent(const RigidBody& body, const double q[4], double out[3]);

// The float placement the stages use.
RigidTransform rigid_transform(const RigidPose& pose);

}  // namespace pbf
