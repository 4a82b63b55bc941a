// scene.h - a pbf-sim scene as a plain struct, read from a JSON file and
// validated. docs/SCENES.md describes the format key by key.
#ifndef PBF_SIM_SCENE_H
#define PBF_SIM_SCENE_H

#include <pbf/pbf.h>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pbf_sim {

using Vec3 = std::array<float, 3>;

/** An axis-aligned box [min, max] in metres; max >= min on every axis. */
struct Box {
  Vec3 min{0.0f, 0.0f, 0.0f};
  Vec3 max{0.0f, 0.0f, 0.0f};
};

/** A unit quaternion (x, y, z, w). */
using Quat = std::array<float, 4>;

/** Where a solid or a mesh-shaped body is: its own frame rotated, then moved to `position`. */
struct Pose {
  Vec3 position{0.0f, 0.0f, 0.0f};     ///< [m]
  Quat rotation{0.0f, 0.0f, 0.0f, 1.0f};
};

/** A triangle mesh file and the scale applied to it in its own frame. */
struct MeshFile {
  std::string file;                    ///< as written in the scene (relative to the scene file's folder)
  std::string path;                    ///< the file to open: `file` resolved against Scene::base_dir
  Vec3 scale{1.0f, 1.0f, 1.0f};        ///< > 0 on every axis
};

/** One block of fluid placed on the rest lattice: a box, a sphere, or the inside of a closed mesh. */
struct FluidBlock {
  enum class Shape { Box, Sphere, Mesh };
  Shape shape = Shape::Box;
  Box box;                             ///< the block when shape == Box [m]
  Vec3 center{0.0f, 0.0f, 0.0f};       ///< the sphere's centre when shape == Sphere [m]
  float radius = 0.0f;                 ///< the sphere's radius [m], > 0
  MeshFile mesh;                       ///< the body when shape == Mesh
  Pose pose;                           ///< the mesh's placement when shape == Mesh
  Vec3 velocity{0.0f, 0.0f, 0.0f};     ///< initial velocity of every particle [m/s]
};

/** The placement of a moving obstacle at one moment. */
struct PoseKey {
  double time = 0.0;  ///< [s], increasing along the path
  Pose pose;
};

/**
 * A rigid solid the fluid flows around: a box, a sphere or a triangle mesh,
 * turned into a signed distance field by the library. Static, or moving
 * along a path of keys (held before the first and after the last; between
 * keys, positions are interpolated linearly and rotations by slerp).
 */
struct ObstacleSpec {
  enum class Shape { Box, Sphere, Mesh };
  Shape shape = Shape::Box;
  Vec3 half_extents{0.0f, 0.0f, 0.0f};  ///< the box's half sizes when shape == Box [m], > 0
  float radius = 0.0f;                  ///< the sphere's radius when shape == Sphere [m], > 0
  MeshFile mesh;                        ///< the solid when shape == Mesh
  Pose pose;                            ///< where it stands (when `path` is empty)
  std::vector<PoseKey> path;            ///< its motion; empty: static
  float cell = 0.0f;                    ///< the field's grid cell [m]; 0 = half the particle spacing
  bool boundary_particles = false;      ///< sample its surface with boundary particles (attached to it when it moves)
  float density = 0.0f;                 ///< > 0: a dynamic body of this uniform density [kg/m^3]; 0: kinematic
  Vec3 velocity{0.0f, 0.0f, 0.0f};      ///< a dynamic body's initial velocity [m/s]
  Vec3 angular_velocity{0.0f, 0.0f, 0.0f};  ///< a dynamic body's initial angular velocity [rad/s]
  /// Its surface's own Coulomb friction (0 .. 10) and restitution (0 .. 1); one not given is the
  /// parameters' (pbf_solver_set_obstacle_material())
  std::optional<float> friction, restitution;
};

/** A collision plane {x : dot(normal, x) + offset = 0}; fluid stays on the positive side. */
struct Plane {
  Vec3 normal{0.0f, 1.0f, 0.0f};  ///< non-zero; the library normalises it
  float offset = 0.0f;            ///< [m]
};

/** An inlet: a disc that emits layers of particles along its normal. */
struct EmitterSpec {
  Vec3 position{0.0f, 0.0f, 0.0f};   ///< centre of the disc, inside the domain [m]
  Vec3 direction{1.0f, 0.0f, 0.0f};  ///< the disc's normal and the flow direction (normalised on load)
  float speed = 1.0f;                ///< speed of emitted particles [m/s], > 0
  float radius = 0.1f;               ///< radius of the disc [m], > 0
  float rate = 0.0f;                 ///< particles per second; 0 = disc particles x speed / spacing
  double start = 0.0;                ///< first emission [s], >= 0
  double stop = std::numeric_limits<double>::infinity();  ///< emission ends before this time [s]
};

/** A drain: every particle inside the box is removed after each frame. */
struct Sink {
  Box box;
};

/** Frame rate and length of the run. */
struct TimeSpec {
  float fps = 60.0f;      ///< frames per simulated second, > 0
  int frames = 120;       ///< frames to simulate, >= 1
  int substeps = 4;       ///< solver substeps per frame, 1 .. 1000
};

/** A pinhole camera for output.png (y is the picture's up when `up` is the y axis). */
struct CameraSpec {
  Vec3 position{0.0f, 0.0f, 1.0f};  ///< the eye [m]
  Vec3 look_at{0.0f, 0.0f, 0.0f};   ///< the point at the picture's centre [m], != position
  Vec3 up{0.0f, 1.0f, 0.0f};        ///< up in the picture, not along the view
  float fov = 40.0f;                ///< vertical field of view [degrees], (0, 180)
};

/** What is written, where, and how often. */
struct OutputSpec {
  std::string dir = "pbf-out";  ///< folder, relative to the working directory
  bool ply = true;              ///< binary PLY per frame (frame_NNNN.ply)
  bool vtp = false;             ///< VTK XML PolyData per frame (frame_NNNN.vtp) and frames.pvd
  int every = 1;                ///< write every n-th frame (and the last), >= 1
  bool surface = false;         ///< liquid surface mesh per frame (surface_NNNN.ply and/or .obj, see surface_format)
  enum class SurfaceFormat { Ply, Obj, Both };
  SurfaceFormat surface_format = SurfaceFormat::Ply;  ///< the surface meshes' files: binary PLY, OBJ with normals, or both
  float surface_resolution = 0.5f;  ///< the surface grid's cell size [spacings], 0.05 .. 4 (the library's range)
  float surface_anisotropy = 0.0f;  ///< pbf_surface_params.anisotropy of the surface meshes, 0 .. 1
  bool vdb = false;             ///< the liquid as OpenVDB grids per frame (surface_NNNN.vdb; vdb_writer.h), voxels of surface_resolution
  bool png = false;             ///< a picture per frame (frame_NNNN.png)
  bool contact_sheet = true;    ///< with png: at the end, up to 16 of the pictures tiled (contact_sheet.png)
  int image_width = 960;        ///< picture size [pixels], 16 .. 8192
  int image_height = 540;
  bool has_camera = false;      ///< false: a 3/4 view that frames the domain
  CameraSpec camera;
  enum class ImageStyle { Water, Particles };
  ImageStyle image_style = ImageStyle::Water;  ///< the liquid's surface shaded as water, or the particles coloured by speed
  float speed_max = 0.0f;       ///< particles style: speed drawn white [m/s]; 0 = one scale fixed at the run's first picture
  std::string stats;            ///< CSV of statistics, one row per frame, relative to the working directory; "" = none
  std::string forces;           ///< CSV of the forces on the obstacles, a row per obstacle per frame; "" = none
  std::string bodies;           ///< CSV of the dynamic obstacles' poses and velocities, a row per body per frame; "" = none
};

/** Everything a run needs, in SI units. */
struct Scene {
  std::string source = "built-in dam break";  ///< the file it came from, for messages
  std::string description;                    ///< free text from the file, may be empty
  std::string base_dir;                       ///< the scene file's folder: mesh files are found from here ("" = working directory)
  Box domain;                                 ///< the box the fluid is kept in; max > min
  pbf_backend backend = PBF_BACKEND_AUTO;
  pbf_method method = PBF_METHOD_PBF;         ///< Position Based Fluids or Projective Fluids
  bool boundary_particles = false;            ///< sample the domain walls with boundary particles (Akinci et al. 2012)
  float spacing = 0.025f;                     ///< particle spacing [m], > 0
  float kernel_radius = 0.0f;                 ///< SPH radius h [m]; 0 = 2 x spacing
  float rest_density = 1000.0f;               ///< [kg/m^3], > 0
  uint32_t max_particles = 1000000u;          ///< capacity, >= 1
  uint32_t max_neighbors = 0u;                ///< neighbours kept per particle; 0 = automatic, else 8 .. 1024
  pbf_params params = pbf_params_default();   ///< every field may be set by its C name
  TimeSpec time;
  std::vector<FluidBlock> fluid;
  std::vector<Plane> planes;
  std::vector<ObstacleSpec> obstacles;
  std::vector<EmitterSpec> emitters;
  std::vector<Sink> sinks;
  OutputSpec output;
};

/**
 * A scene that cannot be used. what() reads "<source>: <key path>: <reason>",
 * for example `scene.json: fluid[1].box.max[2]: expected a number, got "a"`.
 */
class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/**
 * Parses and validates the JSON text of a scene. `source` names the text in
 * messages (usually the file name); mesh files named in it are found from
 * `base_dir` (the working directory when empty). Throws SceneError on the first problem:
 * invalid JSON, a duplicate, unknown or missing key, a value of the wrong
 * type, a count below its minimum, a number that is not finite, an empty or
 * inverted box, an emitter outside the domain.
 */
Scene parse_scene(const std::string& text, const std::string& source, const std::string& base_dir = "");

/** Reads the file at `path` and parses it with parse_scene() (mesh files found from the file's folder); SceneError names the path. */
Scene load_scene(const std::string& path);

/**
 * The reference dam break of docs/PERFORMANCE.md, as pbf-sim runs it without
 * a scene file (samples/scenes/dam_break.json): a 0.975 m cube of water in a
 * 4 x 3 x 1.5 m box, PLY output in pbf-out. `spacing` sets the resolution
 * and keeps the geometry: 39 particles per side at 0.025 m (59,319), 20 at
 * 0.05 m (8,000).
 */
Scene builtin_dam_break(float spacing = 0.025f);

/**
 * Changes the particle spacing of a scene, scaling an explicit kernel radius
 * by the same factor so that the kernel keeps the same number of neighbours.
 * Geometry (domain, blocks, emitters, sinks) stays in metres.
 */
void set_spacing(Scene& scene, float spacing);

/** The pose of `obstacle` at time t [s]: its pose when static, else its path interpolated (held outside it). */
Pose obstacle_pose(const ObstacleSpec& obstacle, double t);

/** The name of a backend as a scene file spells it: "auto", "cpu" or "cuda". */
const char* backend_key(pbf_backend backend);

}  // namespace pbf_sim

#endif  // PBF_SIM_SCENE_H
