// Malformed scene files are refused with a message that names the file, the
// key path and the reason: wrong types, missing, unknown and repeated keys,
// negative counts, NaN and infinities, inverted boxes, bad enum values.
#include <gtest/gtest.h>

#include <string>

#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"

namespace {

using pbf_sim::parse_scene;
using pbf_sim::SceneError;

// The message parse_scene throws for `text`, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse_scene(text, "scene.json");
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

// A valid scene with `extra` members added at the top level.
std::string scene_with(const std::string& extra) {
  return R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": 0.1)" +
         (extra.empty() ? std::string() : ", " + extra) + "}";
}

struct Case {
  const char* what;
  std::string text;
  std::string message;  // the whole message, or its beginning when `prefix`
  bool prefix = false;
};

class MalformedScene : public ::testing::TestWithParam<Case> {};

TEST_P(MalformedScene, IsRefusedWithTheKeyPathAndTheReason) {
  const Case& c = GetParam();
  const std::string message = error_of(c.text);
  if (c.prefix)
    EXPECT_EQ(message.substr(0, c.message.size()), c.message) << "whole message: " << message;
  else
    EXPECT_EQ(message, c.message);
}

const char* kBoxes = R"("fluid": [{"box": {"min": [0, 0, 0], "max": [0.5, 0.5, 0.5]}},
                                  {"box": {"min": [0, 0, 0], "max": [0.5, 0.5, "a"]}}])";

INSTANTIATE_TEST_SUITE_P(
    Scenes, MalformedScene,
    ::testing::Values(
        // Wrong types.
        Case{"string for a number", scene_with(kBoxes), "scene.json: fluid[1].box.max[2]: expected a number, got \"a\""},
        Case{"number for a vector", scene_with(R"("parameters": {"gravity": 9.81})"),
             "scene.json: parameters.gravity: expected an array of 3 numbers, got 9.81"},
        Case{"short vector", scene_with(R"("planes": [{"normal": [0, 1], "offset": 0}])"),
             "scene.json: planes[0].normal: expected an array of 3 numbers, got an array of 2 elements"},
        Case{"number for a boolean", scene_with(R"("output": {"ply": 1})"),
             "scene.json: output.ply: expected true or false, got 1"},
        Case{"object for a list", scene_with(R"("fluid": {"box": {}})"), "scene.json: fluid: expected an array, got an object"},
        Case{"string for an object", scene_with(R"("time": "fast")"), "scene.json: time: expected an object, got \"fast\""},
        Case{"fraction for a count", scene_with(R"("time": {"substeps": 2.5})"),
             "scene.json: time.substeps: expected an integer, got 2.5"},
        Case{"root is not an object", "[]", "scene.json: expected an object, got an empty array"},
        // Missing keys.
        Case{"no spacing", R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}})", "scene.json: spacing: required key is missing"},
        Case{"no domain", R"({"spacing": 0.1})", "scene.json: domain: required key is missing"},
        Case{"no box max", scene_with(R"("fluid": [{"box": {"min": [0, 0, 0]}}])"),
             "scene.json: fluid[0].box.max: required key is missing"},
        Case{"no shape", scene_with(R"("fluid": [{"velocity": [0, 0, 0]}])"),
             "scene.json: fluid[0]: required key is missing: give a \"box\", a \"sphere\" or a \"mesh\""},
        Case{"no mesh file", scene_with(R"("fluid": [{"mesh": {"scale": 2}}])"),
             "scene.json: fluid[0].mesh.file: required key is missing"},
        Case{"no obstacle shape", scene_with(R"("obstacles": [{"position": [0.5, 0.5, 0.5]}])"),
             "scene.json: obstacles[0]: required key is missing: give a \"box\", a \"sphere\" or a \"mesh\""},
        Case{"no path key position", scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "path": [{"time": 0}]}])"),
             "scene.json: obstacles[0].path[0].position: required key is missing"},
        Case{"no rotation angle", scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "rotation": {"axis": [0, 1, 0]}}])"),
             "scene.json: obstacles[0].rotation.degrees: required key is missing"},
        Case{"no emitter speed", scene_with(R"("emitters": [{"position": [0.5, 0.5, 0.5], "direction": [1, 0, 0], "radius": 0.1}])"),
             "scene.json: emitters[0].speed: required key is missing"},
        Case{"no plane offset", scene_with(R"("planes": [{"normal": [0, 1, 0]}])"),
             "scene.json: planes[0].offset: required key is missing"},
        // Unknown and repeated keys.
        Case{"unknown top-level key", scene_with(R"("spacings": 0.1)"), "scene.json: spacings: unknown key (known keys here: ", true},
        Case{"unknown parameter", scene_with(R"("parameters": {"viscosity": 0.1})"),
             "scene.json: parameters.viscosity: unknown key (known keys here: gravity, iterations, ", true},
        Case{"struct_size is not a key", scene_with(R"("parameters": {"struct_size": 8})"),
             "scene.json: parameters.struct_size: unknown key", true},
        Case{"unknown key in a list element", scene_with(R"("sinks": [{"box": {"min": [0, 0, 0], "max": [1, 1, 1]}, "rate": 1}])"),
             "scene.json: sinks[0].rate: unknown key (known keys here: box)"},
        Case{"repeated key", R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": 0.1, "spacing": 0.2})",
             "scene.json: spacing: duplicate key (each key may appear once per object)"},
        Case{"repeated nested key", scene_with(R"("fluid": [{"box": {"min": [0, 0, 0], "min": [1, 1, 1]}}])"),
             "scene.json: fluid[0].box.min: duplicate key (each key may appear once per object)"},
        // Negative or zero counts.
        Case{"negative frames", scene_with(R"("time": {"frames": -1})"),
             "scene.json: time.frames: expected an integer in [1, 100000000], got -1"},
        Case{"negative max_particles", scene_with(R"("max_particles": -5)"),
             "scene.json: max_particles: expected an integer in [1, 268435456], got -5"},
        Case{"max_neighbors below the library's 8", scene_with(R"("max_neighbors": 5)"),
             "scene.json: max_neighbors: expected 0 (automatic) or an integer in [8, 1024], got 5"},
        Case{"max_neighbors above 1024", scene_with(R"("max_neighbors": 2000)"),
             "scene.json: max_neighbors: expected 0 (automatic) or an integer in [8, 1024], got 2000"},
        Case{"negative max_neighbors", scene_with(R"("max_neighbors": -1)"),
             "scene.json: max_neighbors: expected 0 (automatic) or an integer in [8, 1024], got -1"},
        Case{"fractional max_neighbors", scene_with(R"("max_neighbors": 60.5)"),
             "scene.json: max_neighbors: expected an integer, got 60.5"},
        Case{"zero iterations", scene_with(R"("parameters": {"iterations": 0})"),
             "scene.json: parameters.iterations: expected an integer in [1, 100], got 0"},
        Case{"zero every", scene_with(R"("output": {"every": 0})"),
             "scene.json: output.every: expected an integer in [1, 100000000], got 0"},
        Case{"negative spacing", R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": -0.1})",
             "scene.json: spacing: expected a number > 0, got -0.1"},
        Case{"negative rate", scene_with(R"("emitters": [{"position": [0.5, 0.5, 0.5], "direction": [1, 0, 0], "speed": 1, "radius": 0.1, "rate": -3}])"),
             "scene.json: emitters[0].rate: expected a number >= 0, got -3"},
        // NaN and infinities.
        Case{"NaN literal", R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]},
  "spacing": NaN})",
             "scene.json: spacing: parse error at line 2, column", true},
        Case{"NaN as a string", scene_with(R"("rest_density": "NaN")"), "scene.json: rest_density: expected a number, got \"NaN\""},
        Case{"overflow to infinity", scene_with(R"("parameters": {"gravity": [0, -1e999, 0]})"),
             "scene.json: parameters.gravity[1]: number overflow parsing '-1e999'", true},
        Case{"beyond float", scene_with(R"("kernel_radius": 1e39)"),
             "scene.json: kernel_radius: expected a number within single precision (|x| <= 3.4e38), got 1e+39"},
        // Boxes with max < min.
        Case{"inverted domain", R"({"domain": {"min": [0, 1, 0], "max": [1, 0.5, 1]}, "spacing": 0.1})",
             "scene.json: domain.max[1]: must be greater than min[1] = 1, got 0.5"},
        Case{"flat domain", R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 0]}, "spacing": 0.1})",
             "scene.json: domain.max[2]: must be greater than min[2] = 0, got 0"},
        Case{"inverted fluid box", scene_with(R"("fluid": [{"box": {"min": [0.5, 0, 0], "max": [0.2, 1, 1]}}])"),
             "scene.json: fluid[0].box.max[0]: must be at least min[0] = 0.5, got 0.2"},
        Case{"inverted sink", scene_with(R"("sinks": [{"box": {"min": [0, 0, 0.9], "max": [1, 1, 0.1]}}])"),
             "scene.json: sinks[0].box.max[2]: must be at least min[2] = 0.9, got 0.1"},
        // Bad enum values.
        Case{"unknown backend", scene_with(R"("backend": "gpu")"), "scene.json: backend: expected \"auto\", \"cpu\" or \"cuda\", got \"gpu\""},
        Case{"backend as a number", scene_with(R"("backend": 2)"), "scene.json: backend: expected a string, got 2"},
        Case{"unilateral out of range", scene_with(R"("parameters": {"unilateral": 2})"),
             "scene.json: parameters.unilateral: expected an integer in [0, 1], got 2"},
        // Geometry that cannot work.
        Case{"two shapes in a block", scene_with(R"("fluid": [{"box": {"min": [0, 0, 0], "max": [1, 1, 1]}, "sphere": {"center": [0, 0, 0], "radius": 1}}])"),
             "scene.json: fluid[0]: has more than one of \"box\", \"sphere\" and \"mesh\"; give one shape per block"},
        Case{"two shapes in an obstacle", scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "mesh": {"file": "a.obj"}}])"),
             "scene.json: obstacles[0]: has more than one of \"box\", \"sphere\" and \"mesh\"; give one shape per obstacle"},
        Case{"position of a box block", scene_with(R"("fluid": [{"box": {"min": [0, 0, 0], "max": [1, 1, 1]}, "position": [0, 0, 0]}])"),
             "scene.json: fluid[0].position: applies to a \"mesh\" block only (a box or sphere is placed by its own keys)"},
        Case{"flat obstacle box", scene_with(R"("obstacles": [{"box": {"half_extents": [0.1, 0, 0.1]}}])"),
             "scene.json: obstacles[0].box.half_extents[1]: expected a number > 0, got 0"},
        Case{"negative sphere radius", scene_with(R"("obstacles": [{"sphere": {"radius": -0.1}}])"),
             "scene.json: obstacles[0].sphere.radius: expected a number > 0, got -0.1"},
        Case{"zero mesh scale", scene_with(R"("obstacles": [{"mesh": {"file": "a.obj", "scale": [1, 0, 1]}}])"),
             "scene.json: obstacles[0].mesh.scale[1]: expected a number > 0, got 0"},
        Case{"empty mesh file name", scene_with(R"("fluid": [{"mesh": {"file": ""}}])"),
             "scene.json: fluid[0].mesh.file: expected a mesh file name, got \"\""},
        Case{"zero rotation axis", scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "rotation": {"axis": [0, 0, 0], "degrees": 5}}])"),
             "scene.json: obstacles[0].rotation.axis: expected a non-zero vector, got [0, 0, 0]"},
        Case{"empty path", scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "path": []}])"),
             "scene.json: obstacles[0].path: expected at least one key, got []"},
        Case{"path and position", scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "position": [0, 0, 0], "path": [{"time": 0, "position": [0, 0, 0]}]}])"),
             "scene.json: obstacles[0].path: give either \"position\"/\"rotation\" (a static obstacle) or a \"path\", not both"},
        Case{"path going back in time", scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "path": [{"time": 1, "position": [0, 0, 0]}, {"time": 1, "position": [1, 0, 0]}]}])"),
             "scene.json: obstacles[0].path[1].time: must be later than the previous key's time = 1, got 1"},
        Case{"negative path time", scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "path": [{"time": -1, "position": [0, 0, 0]}]}])"),
             "scene.json: obstacles[0].path[0].time: expected a time >= 0, got -1"},
        Case{"zero obstacle cell", scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "cell": 0}])"),
             "scene.json: obstacles[0].cell: expected a number > 0, got 0"},
        Case{"block outside the domain", scene_with(R"("fluid": [{"sphere": {"center": [3, 3, 3], "radius": 0.5}}])"),
             "scene.json: fluid[0].sphere: lies entirely outside the domain"},
        Case{"emitter outside the domain", scene_with(R"("emitters": [{"position": [0.5, 1.5, 0.5], "direction": [1, 0, 0], "speed": 1, "radius": 0.1}])"),
             "scene.json: emitters[0].position: lies outside the domain"},
        Case{"emitter without a direction", scene_with(R"("emitters": [{"position": [0.5, 0.5, 0.5], "direction": [0, 0, 0], "speed": 1, "radius": 0.1}])"),
             "scene.json: emitters[0].direction: expected a non-zero vector, got [0, 0, 0]"},
        Case{"emitter stops before it starts", scene_with(R"("emitters": [{"position": [0.5, 0.5, 0.5], "direction": [1, 0, 0], "speed": 1, "radius": 0.1, "start": 2, "stop": 1}])"),
             "scene.json: emitters[0].stop: must be later than start = 2, got 1"},
        Case{"zero fps", scene_with(R"("time": {"fps": 0})"), "scene.json: time.fps: expected a number > 0, got 0"},
        Case{"empty output folder", scene_with(R"("output": {"dir": ""})"), "scene.json: output.dir: expected a folder name, got \"\""},
        Case{"unknown image style", scene_with(R"("output": {"image_style": "oil"})"),
             "scene.json: output.image_style: expected \"water\" or \"particles\", got \"oil\""},
        Case{"image style not a string", scene_with(R"("output": {"image_style": true})"),
             "scene.json: output.image_style: expected a string, got true"},
        Case{"unknown surface format", scene_with(R"("output": {"surface_format": "stl"})"),
             "scene.json: output.surface_format: expected \"ply\", \"obj\" or \"both\", got \"stl\""},
        Case{"surface formats as a list", scene_with(R"("output": {"surface_format": ["ply", "obj"]})"),
             "scene.json: output.surface_format: expected a string, got an array of 2 elements"},
        // Dynamic bodies.
        Case{"dynamic body on a path",
             scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "density": 500,
                                           "path": [{"time": 0, "position": [0.5, 0.5, 0.5]}]}])"),
             "scene.json: obstacles[0].density: a dynamic body moves with the water; it cannot follow a \"path\" too"},
        Case{"velocity of a kinematic obstacle",
             scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "velocity": [1, 0, 0]}])"),
             "scene.json: obstacles[0].velocity: applies to a dynamic body only: give its \"density\" [kg/m^3]"},
        Case{"zero density", scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "density": 0}])"),
             "scene.json: obstacles[0].density: expected a number > 0, got 0"},
        // Surface materials.
        Case{"negative friction", scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "friction": -0.5}])"),
             "scene.json: obstacles[0].friction: expected a number >= 0, got -0.5"},
        Case{"friction above 10", scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "friction": 12}])"),
             "scene.json: obstacles[0].friction: expected a number in [0, 10], got 12"},
        Case{"restitution above 1", scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "restitution": 1.5}])"),
             "scene.json: obstacles[0].restitution: expected a number in [0, 1], got 1.5"},
        Case{"restitution as a string",
             scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "restitution": "high"}])"),
             "scene.json: obstacles[0].restitution: expected a number, got \"high\""},
        // Not JSON at all.
        Case{"missing comma", "{\"domain\": {\"min\": [0, 0, 0] \"max\": [1, 1, 1]}}",
             "scene.json: domain.min: parse error at line 1, column", true}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name;
      for (const char* c = info.param.what; *c; ++c) name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
      return name;
    });

TEST(SceneErrors, NaNAndInfinityLiteralsAreExplained) {
  for (const char* literal : {"NaN", "nan", "Infinity", "-Infinity", "inf"}) {
    const std::string message = error_of(std::string(R"({"spacing": )") + literal + "}");
    EXPECT_EQ(message.rfind("scene.json: spacing: parse error at line 1, column ", 0), 0u) << message;
    EXPECT_NE(message.find("JSON has no NaN or Infinity"), std::string::npos) << message;
  }
  const std::string other = error_of(R"({"spacing": nul})");
  EXPECT_EQ(other.find("NaN"), std::string::npos) << "no hint for other invalid literals: " << other;
}

TEST(SceneErrors, AMissingFileIsNamed) {
  try {
    pbf_sim::load_scene("no/such/scene.json");
    FAIL() << "loaded a missing file";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()), "no/such/scene.json: cannot open the file");
  }
}

TEST(SceneErrors, AFileIsNamedByItsPath) {
  const std::string path = sim_test::fresh_dir() + "/broken.json";
  sim_test::write_text(path, scene_with(R"("time": {"frames": "many"})"));
  try {
    pbf_sim::load_scene(path);
    FAIL() << "loaded a broken file";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": time.frames: expected an integer, got \"many\"");
  }
}

// Ranges of pbf_params are the library's: the runner reports them under "parameters".
TEST(SceneErrors, AParameterTheLibraryRefusesIsNamed) {
  pbf_sim::Scene scene = parse_scene(scene_with(R"("backend": "cpu", "parameters": {"xsph_viscosity": 5})"), "scene.json");
  try {
    pbf_sim::SceneRunner runner(scene);
    FAIL() << "accepted xsph_viscosity 5";
  } catch (const pbf_sim::RunError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("scene.json: parameters: pbf_solver_set_params: ", 0), 0u) << message;
    EXPECT_NE(message.find("xsph_viscosity"), std::string::npos) << message;
  }
}

TEST(SceneErrors, AKernelRadiusTheLibraryRefusesIsNamed) {
  pbf_sim::Scene scene = parse_scene(scene_with(R"("backend": "cpu", "kernel_radius": 0.05)"), "scene.json");
  try {
    pbf_sim::SceneRunner runner(scene);
    FAIL() << "accepted a kernel radius below the spacing";
  } catch (const pbf_sim::RunError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("scene.json: pbf_solver_create: ", 0), 0u) << message;
    EXPECT_NE(message.find("kernel_radius"), std::string::npos) << message;
  }
}

// A dynamic body the library refuses (a ball wider than the domain) in a
// scene that writes pictures: the runner names it, and frees what it made
// for the pictures' obstacle meshes (the sanitized build's leak check sees
// that; it found the mesher left behind).
TEST(SceneErrors, ABodyTheLibraryRefusesIsNamedAndNothingIsLeftBehind) {
  const std::string out = sim_test::fresh_dir();
  pbf_sim::Scene scene = parse_scene(
      scene_with(R"("backend": "cpu", "output": {"dir": ")" + out + R"(", "png": true},
                    "obstacles": [{"sphere": {"radius": 0.6}, "position": [0.5, 0.5, 0.5], "density": 600}])"),
      "scene.json");
  try {
    pbf_sim::SceneRunner runner(scene);
    FAIL() << "accepted a ball 1.2 m wide in a 1 m domain";
  } catch (const pbf_sim::RunError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("scene.json: obstacles[0]", 0), 0u) << message;
  }
}

TEST(SceneErrors, AValidMinimalSceneGetsEveryDefault) {
  const pbf_sim::Scene s = parse_scene(scene_with(""), "scene.json");
  const pbf_params d = pbf_params_default();
  EXPECT_EQ(s.backend, PBF_BACKEND_AUTO);
  EXPECT_EQ(s.kernel_radius, 0.0f);
  EXPECT_EQ(s.rest_density, 1000.0f);
  EXPECT_EQ(s.max_particles, pbf_solver_desc_default().max_particles);
  EXPECT_EQ(s.max_neighbors, pbf_solver_desc_default().max_neighbors);
  EXPECT_EQ(s.params.iterations, d.iterations);
  EXPECT_EQ(s.params.gravity[1], d.gravity[1]);
  EXPECT_EQ(s.params.xsph_viscosity, d.xsph_viscosity);
  EXPECT_EQ(s.time.fps, 60.0f);
  EXPECT_EQ(s.time.frames, 120);
  EXPECT_EQ(s.time.substeps, 4);
  EXPECT_EQ(s.output.dir, "pbf-out");
  EXPECT_TRUE(s.output.ply);
  EXPECT_FALSE(s.output.vtp);
  EXPECT_EQ(s.output.every, 1);
  EXPECT_TRUE(s.fluid.empty() && s.planes.empty() && s.emitters.empty() && s.sinks.empty());
}

TEST(SceneErrors, EveryParameterIsReadByItsCName) {
  const pbf_sim::Scene s = parse_scene(scene_with(R"("parameters": {
      "gravity": [1, 2, 3], "iterations": 7, "relaxation": 0.02, "unilateral": false,
      "artificial_pressure_k": 0.05, "artificial_pressure_n": 3, "artificial_pressure_dq": 0.25,
      "xsph_viscosity": 0.1, "vorticity_epsilon": 0.2, "restitution": 0.3, "friction": 0.4, "max_speed": 50})"),
                                       "scene.json");
  EXPECT_EQ(s.params.gravity[0], 1.0f);
  EXPECT_EQ(s.params.gravity[1], 2.0f);
  EXPECT_EQ(s.params.gravity[2], 3.0f);
  EXPECT_EQ(s.params.iterations, 7u);
  EXPECT_EQ(s.params.relaxation, 0.02f);
  EXPECT_EQ(s.params.unilateral, 0);
  EXPECT_EQ(s.params.artificial_pressure_k, 0.05f);
  EXPECT_EQ(s.params.artificial_pressure_n, 3.0f);
  EXPECT_EQ(s.params.artificial_pressure_dq, 0.25f);
  EXPECT_EQ(s.params.xsph_viscosity, 0.1f);
  EXPECT_EQ(s.params.vorticity_epsilon, 0.2f);
  EXPECT_EQ(s.params.restitution, 0.3f);
  EXPECT_EQ(s.params.friction, 0.4f);
  EXPECT_EQ(s.params.max_speed, 50.0f);
}

}  // namespace
