// vdb_writer.h - the liquid's surface as an OpenVDB file, for Houdini,
// Blender and other tools that read volumes: a narrow-band level set and a
// fog volume made from the surface mesh the library builds. Present only when
// pbf-sim was built with OpenVDB (Debian's libopenvdb-dev); vdb_available()
// tells.
#ifndef PBF_SIM_VDB_WRITER_H
#define PBF_SIM_VDB_WRITER_H

#include <string>

#include "surface_mesh.h"

namespace pbf_sim {

/** Whether this pbf-sim can write .vdb files (it was built with OpenVDB). */
bool vdb_available();

/**
 * Writes `mesh` (closed, as pbf_solver_build_surface() gives it) to `path` as
 * an OpenVDB file of two float grids on one transform of cubic voxels of
 * `voxel_size` metres:
 *   "surface"  the signed distance to the mesh [m], negative inside the
 *              liquid, in a narrow band of 3 voxels each side (class level
 *              set; Houdini's and OpenVDB's own tools take it as is);
 *   "density"  a fog volume made from it: 1 inside the liquid, 0 outside,
 *              ramping linearly across two voxels centred on the surface, so
 *              that it integrates to the enclosed volume (what Blender's
 *              volume objects render).
 * The file's metadata hold `description`. It is written as AtomicFile
 * writes (complete or not at all). Throws std::runtime_error naming the path
 * on failure, or saying that this pbf-sim was built without OpenVDB.
 */
void write_surface_vdb(const std::string& path, const SurfaceMesh& mesh, float voxel_size,
                       const std::string& description);

}  // namespace pbf_sim

#endif  // PBF_SIM_VDB_WRITER_H
