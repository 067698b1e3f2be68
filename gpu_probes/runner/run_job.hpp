// Runs one plan job on the current CUDA device and returns its result (header + blocks).
#pragma once
#include <string>

#include "fpconform/gpu/plan.hpp"
#include "fpconform/gpu/result.hpp"

namespace fpconform::gpu::runner {

struct DeviceInfo {
  std::string name;
  int cc = 0;  // major*10+minor
  int sm_count = 0;
  int driver_version = 0, runtime_version = 0;
  std::string uuid;
};

// Fills info for device 0; returns "" or why there is no usable GPU.
std::string probe_device(DeviceInfo& info);

// Never throws for device trouble: a failed job comes back with status "error: ...".
Result run_job(const Job& job, const DeviceInfo& device, const std::string& plan_file);

}  // namespace fpconform::gpu::runner
