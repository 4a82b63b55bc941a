// capi_sdf.h - the C handle of a signed distance field, shared by the C API's
// files (pbf_capi_geometry.cpp builds fields, pbf_capi_surface.cpp meshes them).
#pragma once

#include "geometry/signed_distance_field.h"
#include "pbf/pbf.h"

struct pbf_sdf {
  pbf::SignedDistanceField field;
};
