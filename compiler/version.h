// The kiln version: part of every cache key (a new compiler must not reuse old artifacts).
#ifndef KILN_COMPILER_VERSION_H_
#define KILN_COMPILER_VERSION_H_

namespace kiln {
inline constexpr char kKilnVersion[] = "0.1.0";
}  // namespace kiln

#endif  // KILN_COMPILER_VERSION_H_
