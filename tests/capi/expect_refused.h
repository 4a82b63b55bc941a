// expect_refused.h - the check of a refused C API call, shared by the C API
// tests: the status, and a message that names the function and the argument.
#pragma once

#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <string>

namespace pbf_test {

// Expects `status` and a message naming pbf_<function> and `argument`.
inline void expect_refused(pbf_status got, pbf_status status, const char* function, const std::string& argument) {
  const std::string message = pbf_last_error();
  EXPECT_EQ(got, status) << pbf_status_string(got) << ": " << message;
  EXPECT_NE(message.find(function), std::string::npos) << message;
  EXPECT_NE(message.find(argument), std::string::npos) << message;
}

}  // namespace pbf_test
