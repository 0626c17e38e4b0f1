#include "observe/port_match_load.h"

#include "observe/counters.h"
#include "observe/port_map.h"

namespace topoplan {

Result<PortMatch> port_match_load(const Cluster& c, const std::vector<std::string>& counter_files,
                                  std::optional<double> interval_s, const std::string& port_map) {
  std::vector<CounterSample> samples;
  for (const std::string& path : counter_files) {
    Result<CounterSample> s = counters_load(path);
    if (!s) return Error{s.error()};
    samples.push_back(std::move(*s));
  }
  Result<std::vector<PortRate>> rates = counter_rates(samples, interval_s);
  if (!rates) return Error{rates.error()};
  if (port_map.empty()) return port_match(c, std::move(*rates), nullptr);
  Result<PortMapping> mapping = port_mapping_load(port_map, c);
  if (!mapping) return Error{mapping.error()};
  return port_match(c, std::move(*rates), &*mapping);
}

}  // namespace topoplan
