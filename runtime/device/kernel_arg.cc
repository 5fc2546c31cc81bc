#include "runtime/device/kernel_arg.h"

#include "absl/strings/str_cat.h"

namespace kiln::runtime {

absl::StatusOr<KernelArg> ScalarKernelArg(DLDataType t, const KilnAny& v, absl::string_view backend) {
  if (t.code == kDLFloat) {
    double d = v.type_index == kKilnFloat ? v.v_float64 : static_cast<double>(v.v_int64);
    if (t.bits == 32) return KernelArg::Of(static_cast<float>(d));
    if (t.bits == 64) return KernelArg::Of(d);
  } else if (t.code == kDLInt || t.code == kDLUInt) {
    int64_t i = v.v_int64;
    switch (t.bits) {
      case 8: return KernelArg::Of(static_cast<int8_t>(i));
      case 16: return KernelArg::Of(static_cast<int16_t>(i));
      case 32: return KernelArg::Of(static_cast<int32_t>(i));
      case 64: return KernelArg::Of(i);
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(backend, ": scalar kernel argument of type code ", t.code, " bits ",
                                                 t.bits, " is not supported"));
}

}  // namespace kiln::runtime
