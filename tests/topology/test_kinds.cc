#include <doctest/doctest.h>

#include "topology/kinds.h"

using namespace topoplan;

TEST_CASE("kinds: path classes are ordered best to worst and round-trip their names") {
  CHECK(PathClass::NVL < PathClass::PIX);
  CHECK(PathClass::PXB < PathClass::PHB);
  CHECK(PathClass::SYS < PathClass::NET);
  CHECK(PathClass::NET < PathClass::DCI);
  for (int i = 0; i < kPathClasses; ++i) {
    auto c = static_cast<PathClass>(i);
    CHECK(path_class_from(to_string(c)) == c);
  }
  for (int i = 0; i < kLinkKinds; ++i) CHECK(link_kind_from(to_string(static_cast<LinkKind>(i))));
  for (int i = 0; i < kDeviceKinds; ++i) CHECK(device_kind_from(to_string(static_cast<DeviceKind>(i))));
  CHECK_FALSE(device_kind_from("router"));
}
