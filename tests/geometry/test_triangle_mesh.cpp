// Bounds, volume and boundary edges of meshes made in code.
#include <gtest/gtest.h>

#include <cmath>

#include "geometry/test_meshes.h"

namespace {

TEST(TriangleMesh, ABoxHasItsBoundsAndVolumeAndNoBoundary) {
  const pbf::TriangleMesh box = pbf_test::box_mesh(0.3f, 0.2f, 0.1f);
  const pbf::Bounds b = pbf::mesh_bounds(box);
  EXPECT_FLOAT_EQ(b.lo.x, -0.3f);
  EXPECT_FLOAT_EQ(b.hi.y, 0.2f);
  EXPECT_FLOAT_EQ(b.hi.z, 0.1f);
  EXPECT_NEAR(pbf::mesh_volume(box), 0.6 * 0.4 * 0.2, 1e-7);  // positive: the faces point outwards
  EXPECT_EQ(pbf::boundary_edge_count(box), 0u);
}

TEST(TriangleMesh, AFineIcosphereHasNearlyTheSphereVolume) {
  const pbf::TriangleMesh sphere = pbf_test::icosphere(4, 0.5f);
  EXPECT_EQ(sphere.triangles.size(), 5120u);
  // The inscribed polyhedron loses about 0.3 % of the volume at this level.
  EXPECT_NEAR(pbf::mesh_volume(sphere), 4.0 / 3.0 * M_PI * 0.125, 0.005 * (4.0 / 3.0 * M_PI * 0.125));
  EXPECT_EQ(pbf::boundary_edge_count(sphere), 0u);
}

TEST(TriangleMesh, RemovingTrianglesOpensBoundaryEdges) {
  pbf::TriangleMesh box = pbf_test::box_mesh(1.0f, 1.0f, 1.0f);
  box.triangles.pop_back();
  box.triangles.pop_back();  // one face (a square of two triangles) removed: its 4 edges are open
  EXPECT_EQ(pbf::boundary_edge_count(box), 4u);
}

TEST(TriangleMesh, VerticesAtTheSamePositionAreWeldedWhenCountingBoundaries) {
  pbf::TriangleMesh box = pbf_test::box_mesh(1.0f, 1.0f, 1.0f);
  // Give each triangle its own copies of its vertices, as STL files do.
  pbf::TriangleMesh soup;
  for (const auto& t : box.triangles) {
    const uint32_t base = static_cast<uint32_t>(soup.vertices.size());
    for (uint32_t v : t) soup.vertices.push_back(box.vertices[v]);
    soup.triangles.push_back({base, base + 1, base + 2});
  }
  EXPECT_EQ(pbf::boundary_edge_count(soup), 0u);
  EXPECT_NEAR(pbf::mesh_volume(soup), 8.0, 1e-6);
}

TEST(TriangleMesh, ATorusIsClosed) {
  const pbf::TriangleMesh t = pbf_test::torus(0.4f, 0.1f, 64, 32);
  EXPECT_EQ(t.triangles.size(), 2u * 64 * 32);
  EXPECT_EQ(pbf::boundary_edge_count(t), 0u);
  // 2 pi^2 R r^2, less the inscribed polygon's loss (about 1 %).
  EXPECT_NEAR(pbf::mesh_volume(t), 2 * M_PI * M_PI * 0.4 * 0.01, 0.02 * (2 * M_PI * M_PI * 0.4 * 0.01));
}

}  // namespace
