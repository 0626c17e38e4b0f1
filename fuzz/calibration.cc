// Calibration overlays: parse, and round trip through calibration_to_json.
#include "cost/calibration.h"
#include "fuzz/fuzz.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<nlohmann::json> doc = fuzz::json_input(data, size);
  if (!doc) return 0;
  Result<Calibration> cal = calibration_from_json(*doc, "fuzz.json");
  if (!fuzz::ok_or_explained(cal)) return 0;
  fuzz::expect_round_trip([](const nlohmann::json& j) { return calibration_from_json(j, "written.json"); },
                          [](const Calibration& x) { return calibration_to_json(x).dump(); },
                          calibration_to_json(*cal).dump());
  return 0;
}
