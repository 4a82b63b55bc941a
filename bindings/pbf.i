/*
 * pbf.i - the part of the SWIG interface that C# and Java share: which
 * declarations of include/pbf/pbf.h are wrapped.
 *
 * Everything is wrapped on an allowlist: every function, enum, struct and
 * macro constant is ignored, then each one the bindings use is named again:
 * the functions here, the enums, structs and constants in the language files
 * (csharp/pbf_csharp.i, java/pbf_java.i), whose renames do it and which
 * include this file after their typemaps. A declaration added to pbf.h later
 * stays out of the bindings until it is listed (and given its typemaps).
 */

%{
#include "pbf/pbf.h"
%}

%include <stdint.i>

/* Allowlist helpers, after OR-Tools' %ignoreall / %unignore. A rename that
 * names a declaration wins over these catch-all ones. */
%define %ignoreall
%rename("$ignore", %$isfunction) "";
%rename("$ignore", %$isenum) "";
%rename("$ignore", %$isclass) "";
%rename("$ignore", %$isconstant) "";
%enddef
%define %unignore %rename("%s") %enddef

/* The export macro and the C++-only enum base are no part of the interface. */
#define PBF_API
#define PBF_ENUM_INT

%ignoreall

%unignore pbf_last_error;
%unignore pbf_status_string;
%unignore pbf_version;
%unignore pbf_version_string;
%unignore pbf_backend_available;
%unignore pbf_backend_name;
%unignore pbf_method_name;
%unignore pbf_solver_create;
%unignore pbf_solver_get_desc;
%unignore pbf_solver_get_particle_mass;
%unignore pbf_solver_get_params;
%unignore pbf_solver_set_params;
%unignore pbf_solver_particle_count;
%unignore pbf_solver_add_particles;
%unignore pbf_solver_fill_box;
%unignore pbf_solver_remove_particles;
%unignore pbf_solver_clear_particles;
%unignore pbf_solver_get_positions;
%unignore pbf_solver_get_velocities;
%unignore pbf_solver_get_densities;
%unignore pbf_solver_update_densities;
%unignore pbf_solver_set_positions;
%unignore pbf_solver_set_velocities;
%unignore pbf_solver_map;
%unignore pbf_solver_unmap;
%unignore pbf_solver_add_plane;
%unignore pbf_solver_clear_planes;
%unignore pbf_solver_step;
%unignore pbf_solver_step_async;
%unignore pbf_solver_wait;
%unignore pbf_solver_poll;
%unignore pbf_solver_get_stats;
%unignore pbf_solver_write_ply;
%unignore pbf_solver_save_checkpoint;
%unignore pbf_solver_load_checkpoint;
%unignore pbf_solver_add_obstacle_sdf;
%unignore pbf_solver_set_obstacle_pose;
%unignore pbf_solver_get_obstacle_count;
%unignore pbf_solver_get_obstacle_force;
%unignore pbf_solver_get_obstacle_pose;
%unignore pbf_solver_set_obstacle_dynamic;
%unignore pbf_solver_set_obstacle_velocity;
%unignore pbf_solver_get_obstacle_velocity;
%unignore pbf_solver_set_obstacle_material;
%unignore pbf_solver_clear_obstacle_material;
%unignore pbf_solver_get_obstacle_material;
%unignore pbf_solver_clear_obstacles;
%unignore pbf_solver_add_boundary_particles;
%unignore pbf_solver_add_domain_boundary_particles;
%unignore pbf_solver_get_boundary_particle_count;
%unignore pbf_solver_clear_boundary_particles;
%unignore pbf_sdf_from_mesh_file;
%unignore pbf_sdf_box;
%unignore pbf_sdf_sphere;
%unignore pbf_sdf_save;
%unignore pbf_sdf_load;
%unignore pbf_sdf_get_grid;
%unignore pbf_sdf_get_values;
%unignore pbf_sdf_distance;
%unignore pbf_sdf_volume;
%unignore pbf_sdf_mass_properties;
%unignore pbf_solver_add_obstacle;
%unignore pbf_solver_fill_sdf;
%unignore pbf_solver_add_sdf_boundary_particles;
%unignore pbf_solver_add_obstacle_boundary_particles;
%unignore pbf_solver_remove_obstacle_boundary_particles;
%unignore pbf_surface_create;
%unignore pbf_solver_build_surface;
%unignore pbf_sdf_build_surface;
%unignore pbf_surface_get_counts;
%unignore pbf_surface_get_vertices;
%unignore pbf_surface_get_normals;
%unignore pbf_surface_get_triangles;
%unignore pbf_surface_write_ply;

/* pbf_solver_destroy, pbf_sdf_destroy and pbf_surface_destroy are named by each language file: C# binds them
 * to raw pointers. */

%include "pbf/pbf_version.h"
%include "pbf/pbf.h"
