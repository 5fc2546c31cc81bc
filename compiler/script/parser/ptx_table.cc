// The PTX instruction table and the call resolution of T.ptx (see ptx_table.h). The facts (slot
// domains, operand layouts, the cross-slot rules) follow the PTX ISA sections named beside each
// group, as TVM v0.26's dialect models them.
#include "compiler/script/parser/ptx_table.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln::script::parser {
namespace {

using Strings = std::vector<std::string>;
// Every slot of an entry -> its token, "" when omitted.
using ModMap = std::map<std::string, std::string>;

std::string Get(const ModMap& m, const std::string& slot) {
  auto it = m.find(slot);
  return it == m.end() ? "" : it->second;
}
bool In(const std::string& s, const Strings& set) { return std::find(set.begin(), set.end(), s) != set.end(); }
bool StartsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

// A PTX operand type token -> the dtypes a register of that type may hold, canonical first. A
// bit-size type (.bN) takes any dtype of its width; a typed one (.u32, .f32) names one; packed
// and half types ride in the integer register of their width; .pred crosses as a uint32.
const Strings& TypeDtypes(const std::string& type) {
  static const auto* const kTable = new std::map<std::string, Strings>{
      {"b8", {"uint8", "int8"}},
      {"b16", {"uint16", "int16", "float16", "bfloat16"}},
      {"b32", {"uint32", "int32", "float32"}},
      {"b64", {"uint64", "int64", "float64"}},
      {"b128", {"uint128", "int128"}},
      {"b32i", {"uint32", "int32"}},
      {"b64i", {"uint64", "int64"}},
      {"u8", {"uint8"}}, {"s8", {"int8"}}, {"u16", {"uint16"}}, {"s16", {"int16"}},
      {"u32", {"uint32"}}, {"s32", {"int32"}}, {"u64", {"uint64"}}, {"s64", {"int64"}},
      {"f32", {"float32"}}, {"f64", {"float64"}}, {"f32x2", {"uint64"}},
      {"f16", {"uint16"}}, {"bf16", {"uint16"}},
      {"u16x2", {"uint32"}}, {"s16x2", {"uint32"}}, {"u8x4", {"uint32"}}, {"s8x4", {"uint32"}},
      {"f16x2", {"uint32"}}, {"bf16x2", {"uint32"}},
      {"pred", {"uint32"}},
  };
  static const auto* const kNone = new Strings{};
  auto it = kTable->find(type);
  return it == kTable->end() ? *kNone : it->second;
}

struct Slot {
  std::string name;
  Strings choices;
  bool optional = false;
};
Slot Req(std::string name, Strings choices) { return {std::move(name), std::move(choices), false}; }
Slot Opt(std::string name, Strings choices) { return {std::move(name), std::move(choices), true}; }

enum class Rw { kRead, kWrite };
enum class Kind { kReg, kAddr, kPtr, kImm };
using TypeFn = std::string (*)(const ModMap&);
using DtypesFn = Strings (*)(const ModMap&);
using LanesFn = int (*)(const ModMap&);
using PredFn = bool (*)(const ModMap&);
using CheckFn = std::string (*)(const ModMap&);

// One operand of a syntax line, in PTX operand order. Built with the chained setters below.
struct Operand {
  std::string name;
  Rw rw = Rw::kRead;
  Kind kind = Kind::kReg;
  // The register type: "" = the entry's `type` slot; the name of a slot (an omitted optional slot
  // falls back to `type`); or a type token.
  std::string type;
  TypeFn type_fn = nullptr;      // a type the ISA derives from the modifiers (mul.wide's d)
  DtypesFn dtypes_fn = nullptr;  // a dtype domain wider than the type's (ld.s32's d)
  int lanes = 1;                 // a register group {a, b, ...} of this many registers
  LanesFn lanes_fn = nullptr;
  bool sinkable = false;         // a lane may be T.ptx.SINK (`_`)
  PredFn sinkable_fn = nullptr;
  bool addr_offset = false;      // an address that takes T.ptx.addr(base, byte_offset)
  std::string space;             // an address's state space when fixed; else the `space` slot's
  Strings imm_choices;           // the values a text immediate may take; empty = any constant

  Operand W() const { Operand o = *this; o.rw = Rw::kWrite; return o; }
  Operand Type(std::string t) const { Operand o = *this; o.type = std::move(t); return o; }
  Operand TypeOf(TypeFn f) const { Operand o = *this; o.type_fn = f; return o; }
  Operand Dtypes(DtypesFn f) const { Operand o = *this; o.dtypes_fn = f; return o; }
  Operand Lanes(int n) const { Operand o = *this; o.lanes = n; return o; }
  Operand LanesOf(LanesFn f) const { Operand o = *this; o.lanes_fn = f; return o; }
  Operand Sink() const { Operand o = *this; o.sinkable = true; return o; }
  Operand SinkIf(PredFn f) const { Operand o = *this; o.sinkable_fn = f; return o; }
  Operand Space(std::string s) const { Operand o = *this; o.space = std::move(s); return o; }
  Operand NoOffset() const { Operand o = *this; o.addr_offset = false; return o; }
  Operand Choices(Strings c) const { Operand o = *this; o.imm_choices = std::move(c); return o; }
};
Operand Reg(std::string name) { Operand o; o.name = std::move(name); return o; }
Operand Addr(std::string name) {  // a memory operand [a] in the entry's `space`
  Operand o;
  o.name = std::move(name);
  o.kind = Kind::kAddr;
  o.addr_offset = true;
  return o;
}
Operand Ptr(std::string name) { Operand o; o.name = std::move(name); o.kind = Kind::kPtr; return o; }
Operand Imm(std::string name) { Operand o; o.name = std::move(name); o.kind = Kind::kImm; return o; }

// One syntax line: the shape its operands take and the modifiers it spells.
struct Entry {
  std::string name;    // names the line in messages, e.g. "mad_int"
  std::string family;  // what a program types after T.ptx.
  std::vector<Slot> slots;
  std::vector<Operand> operands;
  CheckFn check = nullptr;  // the ISA's cross-slot rules: "" or what is wrong
};

// ------------------------------------------------------------------ cross-slot rules

const Strings kIntTypes = {"u16", "u32", "u64", "s16", "s32", "s64"};
const Strings kBits64 = {"b64", "u64", "s64", "f64"};

// {.level::cache_hint} is an L2 policy: global or generic addressing, not the volatile line.
std::string CheckCacheHint(const ModMap& m) {
  if (Get(m, "cache").empty()) return "";
  std::string ss = Get(m, "space");
  if (ss == "local" || StartsWith(ss, "shared")) return absl::StrCat(".L2::cache_hint does not apply to .", ss);
  if (Get(m, "sem") == "volatile") return ".L2::cache_hint is not spelled on the .volatile line";
  return "";
}

// ld/st (ISA 9.7.9.8, 9.7.9.9, 9.7.9.11). `op` is "ld" or "st"; `ordered` its non-weak semantic.
std::string CheckMemoryOrder(const ModMap& m, const std::string& op, const std::string& ordered) {
  if (std::string e = CheckCacheHint(m); !e.empty()) return e;
  std::string sem = Get(m, "sem"), scope = Get(m, "scope"), ss = Get(m, "space"), cop = Get(m, "cop");
  std::string ev = Get(m, "l1ev").empty() ? Get(m, "l2ev") : Get(m, "l1ev");
  bool nc = !Get(m, "nc").empty(), prefetch = !Get(m, "prefetch").empty();
  bool scoped = sem == "relaxed" || sem == ordered;
  if (scoped && scope.empty()) return absl::StrCat(op, ".", sem, " requires a scope (cta/cluster/gpu/sys)");
  if (!scoped && !scope.empty()) return absl::StrCat("a scope is spelled only with ", op, ".relaxed / ", op, ".", ordered);
  if (!Get(m, "mmio").empty()) {
    if (sem != "relaxed") return absl::StrCat(op, ".mmio requires .relaxed");
    if (scope != "sys") return absl::StrCat(op, ".mmio requires the .sys scope");
    if (!ss.empty() && ss != "global") return absl::StrCat(op, ".mmio takes .global or generic addressing only");
    if (!cop.empty() || nc || !ev.empty() || prefetch || !Get(m, "cache").empty()) {
      return absl::StrCat(op, ".mmio takes no cache qualifier");
    }
    return "";
  }
  if (scoped) {
    if (ss == "local") return absl::StrCat(op, ".", sem, " does not apply to .local");
    if (!cop.empty()) return absl::StrCat(op, ".", sem, " takes no cache operator");
    if (nc) return "ld.global.nc has no memory-ordering form";
  }
  if (sem == "volatile" && (!cop.empty() || !ev.empty() || nc || (op == "st" && prefetch))) {
    return absl::StrCat(op, ".volatile takes no cache operator or eviction priority");
  }
  if (!cop.empty() && !ev.empty()) return "a cache operator and an eviction priority are on separate syntax lines";
  if (nc) {
    if (ss != "global") return "ld.nc requires the .global state space";
    if (!sem.empty()) return "ld.global.nc takes no memory-ordering semantic";
    if (cop == "lu" || cop == "cv") return "ld.global.nc takes the .ca/.cg/.cs cache operators only";
  }
  if (prefetch && !ss.empty() && ss != "global") return "a prefetch size applies to .global or generic addressing only";
  if (!ev.empty() && !ss.empty() && ss != "global") return "an eviction priority applies to .global or generic addressing only";
  return "";
}
std::string CheckLd(const ModMap& m) { return CheckMemoryOrder(m, "ld", "acquire"); }
std::string CheckSt(const ModMap& m) { return CheckMemoryOrder(m, "st", "release"); }
// The .vec lines: up to 128 bits, or exactly 256 on the 256-bit lines.
std::string CheckVec128(const ModMap& m) {
  if (Get(m, "vec") == "v4" && In(Get(m, "type"), kBits64)) return "a 64-bit .v4 access is 256 bits wide: the 256-bit line, .global only";
  return "";
}
std::string CheckVec256(const ModMap& m) {
  std::string vec = Get(m, "vec");
  bool wide = In(Get(m, "type"), kBits64);
  if (vec == "v8" && wide) return "a .v8 access takes a 32-bit type";
  if (vec == "v4" && !wide) return "a 32-bit .v4 access is 128 bits wide: the 128-bit line";
  return "";
}
std::string CheckLdVec(const ModMap& m) { std::string e = CheckVec128(m); return e.empty() ? CheckLd(m) : e; }
std::string CheckStVec(const ModMap& m) { std::string e = CheckVec128(m); return e.empty() ? CheckSt(m) : e; }
std::string CheckLdVec256(const ModMap& m) { std::string e = CheckVec256(m); return e.empty() ? CheckLd(m) : e; }
std::string CheckStVec256(const ModMap& m) { std::string e = CheckVec256(m); return e.empty() ? CheckSt(m) : e; }
Strings LdDstDtypes(const ModMap& m) {  // a signed 32-bit load may sign-extend into 64 bits
  if (Get(m, "type") == "s32") return {"int32", "int64"};
  return TypeDtypes(Get(m, "type"));
}
int VecLanes(const ModMap& m) { return std::stoi(Get(m, "vec").substr(1)); }
int CachePolicyLanes(const ModMap& m) { return Get(m, "cache").empty() ? 0 : 1; }
bool Sink256(const ModMap& m) {  // ISA 9.7.9.8: `_` only in a full 256-bit vector
  return Get(m, "vec") == "v8" ? !In(Get(m, "type"), kBits64) : In(Get(m, "type"), kBits64);
}

// Integer arithmetic (ISA 9.7.1).
std::string WideType(const ModMap& m) {
  std::string t = Get(m, "type");
  return std::string(1, t[0]) + (t.substr(1) == "16" ? "32" : "64");
}
std::string CheckIntMad(const ModMap& m) {
  if (!Get(m, "sat").empty() && (Get(m, "mode") != "hi" || Get(m, "type") != "s32")) {
    return ".sat is spelled only as mad.hi.sat.s32";
  }
  return "";
}
std::string CheckIntAddSub(const ModMap& m) {
  if (!Get(m, "sat").empty() && Get(m, "type") != "s32") return absl::StrCat(".sat is not supported with .", Get(m, "type"));
  return "";
}

// Floating point (ISA 9.7.3, 9.7.4, 9.7.5).
std::string CheckFloatArith(const ModMap& m) {
  std::string type = Get(m, "type"), src = Get(m, "srctype");
  if (!src.empty()) {
    if (type != "f32") return absl::StrCat("a mixed-precision .", src, " source only exists on the .f32 line");
    if (!Get(m, "ftz").empty()) return "the mixed-precision line takes no .ftz";
    return "";
  }
  if (!Get(m, "ftz").empty() && type == "f64") return ".ftz is spelled on the .f32/.f32x2 lines only";
  if (!Get(m, "sat").empty() && type != "f32") return ".sat is spelled on the .f32 line only";
  return "";
}
bool IsBf16(const ModMap& m, const char* slot = "type") { return StartsWith(Get(m, slot), "bf16"); }
std::string CheckHalfArith(const ModMap& m) {
  if (IsBf16(m) && (!Get(m, "ftz").empty() || !Get(m, "sat").empty())) return absl::StrCat(".", Get(m, "type"), " takes no .ftz or .sat");
  return "";
}
std::string CheckHalfFma(const ModMap& m) {
  if (std::string e = CheckHalfArith(m); !e.empty()) return e;
  if (!Get(m, "oob").empty() && (!Get(m, "ftz").empty() || !Get(m, "sat").empty())) {
    return "the .oob line spells no .ftz or .sat (only .relu)";
  }
  if (!Get(m, "sat").empty() && !Get(m, "relu").empty()) return ".sat and .relu are on separate syntax lines";
  return "";
}
std::string CheckDivF(const ModMap& m) {
  std::string mode = Get(m, "mode");
  if ((mode == "approx" || mode == "full") && Get(m, "type") != "f32") {
    return absl::StrCat("div.", mode, " exists only on the .f32 line");
  }
  if (Get(m, "type") == "f64" && !Get(m, "ftz").empty()) return "div.f64 takes no .ftz";
  return "";
}
std::string CheckSqrt(const ModMap& m) {
  if (Get(m, "mode") == "approx" && Get(m, "type") != "f32") return "sqrt.approx exists only on the .f32 line";
  if (Get(m, "type") == "f64" && !Get(m, "ftz").empty()) return "sqrt.f64 takes no .ftz";
  return "";
}
std::string CheckRcp(const ModMap& m) {
  bool f64 = Get(m, "type") == "f64", ftz = !Get(m, "ftz").empty();
  if (Get(m, "mode") == "approx") {
    if (f64 && !ftz) return "the f64 approximation is spelled rcp.approx.ftz.f64 (.ftz is mandatory)";
    return "";
  }
  if (f64 && ftz) return "rcp.rnd.f64 takes no .ftz";
  return "";
}
std::string CheckHalfEx2(const ModMap& m) {
  bool ftz = !Get(m, "ftz").empty();
  if (IsBf16(m)) return ftz ? "" : "the bf16 lines spell .ftz mandatorily: ex2.approx.ftz.bf16";
  return ftz ? absl::StrCat(".", Get(m, "type"), " has no .ftz line") : "";
}
std::string CheckAbsNeg(const ModMap& m) {
  if (!Get(m, "ftz").empty() && Get(m, "type") != "f32") return ".ftz is spelled on the .f32 line only";
  return "";
}
std::string CheckHalfAbsNeg(const ModMap& m) {
  if (IsBf16(m) && !Get(m, "ftz").empty()) return absl::StrCat(".", Get(m, "type"), " takes no .ftz");
  return "";
}

// Comparison and selection (ISA 9.7.6, 9.7.7).
const Strings kCmpOrdered = {"eq", "ne", "lt", "le", "gt", "ge"};
const Strings kCmpUnordered = {"equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
const Strings kCmpUnsigned = {"lo", "ls", "hi", "hs"};
const Strings kCmpOps = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
                         "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
const Strings kHalfCmpOps = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
const Strings kCmpTypes = {"b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"};
std::string CheckCmp(const ModMap& m) {
  std::string type = Get(m, "stype").empty() ? Get(m, "type") : Get(m, "stype"), op = Get(m, "cmp");
  if (!Get(m, "ftz").empty() && type != "f32") return ".ftz applies only to .f32 comparisons";
  switch (type[0]) {
    case 'b':
      return In(op, {"eq", "ne"}) ? "" : absl::StrCat("the bit-size type .", type, " compares only with eq/ne");
    case 's':
      return In(op, kCmpOrdered) ? "" : absl::StrCat(".", type, " is signed: eq/ne/lt/le/gt/ge only");
    case 'u':
      return In(op, kCmpUnordered) ? absl::StrCat(op, " is a floating-point comparison, not valid on .", type) : "";
    default:
      return In(op, kCmpUnsigned) ? absl::StrCat(op, " is an unsigned-only comparison, not valid on .", type) : "";
  }
}
std::string CheckHalfSetp(const ModMap& m) {
  if (!Get(m, "ftz").empty() && IsBf16(m)) return absl::StrCat(".", Get(m, "type"), " spells no .ftz");
  return "";
}
std::string CheckHalfSet(const ModMap& m) {
  std::string d = Get(m, "dtype"), s = Get(m, "stype"), op = Get(m, "cmp");
  static const Strings kHalfSources = {"b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f16", "f32", "f64"};
  bool paired = ((d == "f16" || d == "bf16") && In(s, kHalfSources)) ||
                (In(d, {"u16", "s16", "u32", "s32"}) && (s == "f16" || s == "bf16")) ||
                ((d == "u32" || d == "s32") && (s == "f16x2" || s == "bf16x2")) || (d == s && (d == "f16x2" || d == "bf16x2"));
  if (!paired) return absl::StrCat("no half-precision syntax line pairs .", d, " with .", s);
  if (!Get(m, "ftz").empty()) {
    if (StartsWith(d, "bf16")) return absl::StrCat("a .", d, " destination takes no .ftz");
    if (!In(s, {"f16", "f32", "f16x2"})) return absl::StrCat(".ftz flushes subnormal inputs: a .", s, " source does not take it");
  }
  if (s[0] == 'b' && s != "bf16" && s != "bf16x2") {
    if (!In(op, {"eq", "ne"})) return absl::StrCat("the bit-size source .", s, " compares only with eq/ne");
  } else if (s[0] == 'u' || s[0] == 's') {
    if (!In(op, kCmpOrdered)) return absl::StrCat("the integer source .", s, " takes eq/ne/lt/le/gt/ge only");
  }
  return "";
}
std::string CheckSlct(const ModMap& m) {
  if (!Get(m, "ftz").empty() && Get(m, "ctype") != "f32") return ".ftz is spelled on the .f32 selector line only";
  return "";
}

// Memory-consistency families (ISA 9.7.9.12 multimem, 9.7.9.13 st.async, 9.7.13.5 atom,
// 9.7.13.7 red.async): which types each operation takes.
std::string CheckMultimemSem(const ModMap& m) {
  if (Get(m, "sem") == "weak") return Get(m, "scope").empty() ? "" : ".weak is its own syntax line and takes no scope";
  if (Get(m, "sem").empty() != Get(m, "scope").empty()) return "the .sem and .scope qualifiers go together: write both or neither";
  return "";
}
std::string TypesError(const std::string& what, const Strings& allowed) {
  Strings dotted;
  for (const std::string& t : allowed) dotted.push_back("." + t);
  return absl::StrCat(what, " takes ", absl::StrJoin(dotted, " / "));
}
std::string CheckMultimemInt(const ModMap& m) {
  if (std::string e = CheckMultimemSem(m); !e.empty()) return e;
  static const auto* const kOps = new std::map<std::string, Strings>{
      {"min", {"u32", "u64", "s32", "s64"}}, {"max", {"u32", "u64", "s32", "s64"}}, {"add", {"u32", "u64", "s32"}},
      {"and", {"b32", "b64"}}, {"or", {"b32", "b64"}}, {"xor", {"b32", "b64"}}};
  const Strings& allowed = kOps->at(Get(m, "op"));
  return In(Get(m, "type"), allowed) ? "" : TypesError("." + Get(m, "op"), allowed);
}
std::string CheckMultimemFloat(const ModMap& m) {
  if (std::string e = CheckMultimemSem(m); !e.empty()) return e;
  static const auto* const kVecTypes = new std::map<std::string, Strings>{
      {"", {"f16x2", "bf16x2", "f32", "f64"}}, {"v2", {"f16", "f16x2", "bf16", "bf16x2", "f32"}},
      {"v4", {"f16", "f16x2", "bf16", "bf16x2", "f32"}}, {"v8", {"f16", "bf16"}}};
  std::string type = Get(m, "type"), vec = Get(m, "vec"), op = Get(m, "op");
  const Strings& allowed = kVecTypes->at(vec);
  if (!In(type, allowed)) return TypesError(vec.empty() ? "the scalar line" : "." + vec, allowed);
  bool wide = type == "f32" || type == "f64";
  if ((op == "min" || op == "max") && wide) return absl::StrCat(".", op, " is half precision only; .", type, " is on the .add line");
  if (!Get(m, "acc").empty()) {
    if (wide) return absl::StrCat(".acc::f32 widens a half accumulation; .", type, " is already wider");
    if (op != "add") return absl::StrCat(".acc::f32 applies to .add only, not .", op);
  }
  return "";
}
std::string CheckStAsyncVec(const ModMap& m) {
  static const Strings kV4 = {"b32", "u32", "s32", "f32"};
  if (Get(m, "vec") == "v4" && !In(Get(m, "type"), kV4)) return TypesError(".v4", kV4);
  return "";
}
std::string CheckAsyncRelease(const ModMap& m) {
  if (!Get(m, "mmio").empty() && Get(m, "scope") != "sys") return ".mmio requires .sys scope";
  return "";
}
std::string CheckAtom(const ModMap& m) {
  if (std::string e = CheckCacheHint(m); !e.empty()) return e;
  static const auto* const kOps = new std::map<std::string, Strings>{
      {"and", {"b32", "b64"}}, {"or", {"b32", "b64"}}, {"xor", {"b32", "b64"}}, {"inc", {"u32"}}, {"dec", {"u32"}},
      {"min", {"u32", "s32", "u64", "s64"}}, {"max", {"u32", "s32", "u64", "s64"}}, {"add", {"u32", "s32", "u64", "f32", "f64"}}};
  const Strings& allowed = kOps->at(Get(m, "op"));
  return In(Get(m, "type"), allowed) ? "" : TypesError("." + Get(m, "op"), allowed);
}
std::string CheckAtomVec(const ModMap& m) {
  if (Get(m, "vec") == "v8" && (Get(m, "type") == "f16x2" || Get(m, "type") == "bf16x2")) {
    return absl::StrCat(".", Get(m, "type"), " is already a 32-bit pair: it reaches .v4, and .v8 takes a lone half");
  }
  return "";
}
std::string CheckRedAsync(const ModMap& m) {
  static const auto* const kOps = new std::map<std::string, Strings>{
      {"inc", {"u32"}}, {"dec", {"u32"}}, {"min", {"u32", "s32"}}, {"max", {"u32", "s32"}}, {"and", {"b32"}},
      {"or", {"b32"}}, {"xor", {"b32"}}, {"add", {"u32", "s32", "u64"}}};
  const Strings& allowed = kOps->at(Get(m, "op"));
  return In(Get(m, "type"), allowed) ? "" : TypesError("." + Get(m, "op"), allowed);
}

// tcgen05 (ISA 9.7.16): register counts of tcgen05.ld/st and the shape/format rules.
int Tcgen05LdStLanes(const ModMap& m) {
  std::string shape = Get(m, "shape");
  int per = shape == "16x128b" ? 2 : shape == "16x256b" ? 4 : 1;
  return std::stoi(Get(m, "num").substr(1)) * per;
}
std::string CheckTcgen05LdSt(const ModMap& m) {
  if (Tcgen05LdStLanes(m) > 128) return absl::StrCat("shape ", Get(m, "shape"), " with .", Get(m, "num"), " exceeds 128 registers");
  return "";
}
int Tcgen05MaskLanes(const ModMap& m) { return Get(m, "cta_group") == "cta_group::2" ? 8 : 4; }
std::string CheckTcgen05Cp(const ModMap& m) {
  std::string shape = Get(m, "shape"), multicast = Get(m, "multicast");
  if (shape == "64x128b") {
    if (multicast != "warpx2::02_13" && multicast != "warpx2::01_23") return "shape 64x128b requires multicast warpx2::02_13 or warpx2::01_23";
  } else if (shape == "32x128b") {
    if (multicast != "warpx4") return "shape 32x128b requires multicast warpx4";
  } else if (!multicast.empty()) {
    return absl::StrCat("shape ", shape, " takes no multicast");
  }
  if (Get(m, "dst_fmt").empty() != Get(m, "src_fmt").empty()) return "dst_fmt and src_fmt are given together";
  return "";
}
std::string CheckTcgen05ScaleVec(const ModMap& m) {
  std::string kind = Get(m, "kind"), vec = Get(m, "scale_vec");
  Strings valid = kind == "kind::mxf8f6f4" ? Strings{"scale_vec::1X"}
                  : kind == "kind::mxf4"   ? Strings{"scale_vec::2X"}
                                           : Strings{"scale_vec::2X", "scale_vec::4X"};
  return In(vec, valid) ? "" : absl::StrCat(kind, " scales with ", absl::StrJoin(valid, "/"));
}
std::string CheckTcgen05BlockSize(const ModMap& m) {
  std::string kind = Get(m, "kind");
  Strings valid = kind == "kind::mxf4nvf4" ? Strings{"block16", "block32"} : Strings{"block32"};
  return In(Get(m, "block_size"), valid) ? "" : absl::StrCat(kind, " supports ", absl::StrJoin(valid, "/"));
}

// cp.async and the bulk copies (ISA 9.7.9.25): optional operands follow their qualifiers.
int IgnoreOobLanes(const ModMap& m) { return Get(m, "ignore_oob").empty() ? 0 : 1; }
int MulticastLanes(const ModMap& m) { return Get(m, "multicast").empty() ? 0 : 1; }
int CpMaskLanes(const ModMap& m) { return Get(m, "cp_mask").empty() ? 0 : 1; }
bool Scatters(const ModMap& m) { return Get(m, "load_mode") == "tile::gather4" || Get(m, "load_mode") == "tile::scatter4"; }
int TmaCoordsLanes(const ModMap& m) { return Scatters(m) ? 5 : Get(m, "dim")[0] - '0'; }
std::string CheckTmaGather4(const ModMap& m) {
  if (Scatters(m) && Get(m, "dim") != "2d") return absl::StrCat(Get(m, "load_mode"), " is a 2d-only load mode");
  return "";
}

// ------------------------------------------------------------------ the table

// The operands and slots several groups of lines share.
struct Common {
  const Operand d = Reg("d").W(), a = Reg("a"), b = Reg("b"), c = Reg("c");
  const Strings scopes = {"cta", "cluster", "gpu", "sys"};
  const Strings prefetch = {"L2::64B", "L2::128B", "L2::256B"};
  const Operand policy = Reg("cache_policy").Type("u64").LanesOf(CachePolicyLanes);
  const Operand mask = Reg("membermask").Type("u32");
  const Slot completion = Req("completion", {"mbarrier::complete_tx::bytes"});
  const Slot cta_group = Req("cta_group", {"cta_group::1", "cta_group::2"});
  const Operand mbar = Addr("mbar").Space("shared::cluster");
};

// Appends one entry. The table is built by one function per group of instructions: a single
// function of all ~150 entries took GCC minutes to compile (its temporaries' cleanups).
struct Adder {
  std::vector<Entry>* t;
  void operator()(std::string name, std::string family, std::vector<Slot> slots, std::vector<Operand> ops,
                  CheckFn check = nullptr) const {
    t->push_back({std::move(name), std::move(family), std::move(slots), std::move(ops), check});
  }
};

void AddLoadsStores(const Adder& add, const Common& k) {
  const Operand &d = k.d, &policy = k.policy;
  const Strings &scopes = k.scopes, &prefetch = k.prefetch;
  // ld / st (ISA 9.7.9.8, 9.7.9.9, 9.7.9.11): scalar, 128-bit vector and 256-bit vector lines.
  const Strings sem_ld = {"weak", "acquire", "relaxed", "volatile"}, sem_st = {"weak", "release", "relaxed", "volatile"};
  const Strings spaces = {"global", "shared", "shared::cta", "shared::cluster", "local"};
  const Strings l1ev = {"L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last", "L1::no_allocate"};
  const Strings l2ev = {"L2::evict_first", "L2::evict_last", "L2::evict_normal"};
  const Strings mem_types = {"b8", "u8", "s8", "b16", "u16", "s16", "b32", "u32", "s32", "b64", "u64", "s64", "f32", "f64"};
  Strings scalar_types = mem_types;
  scalar_types.push_back("b128");
  const Strings types256 = {"b32", "u32", "s32", "f32", "b64", "u64", "s64", "f64"};
  add("ld", "ld",
      {Opt("mmio", {"mmio"}), Opt("sem", sem_ld), Opt("scope", scopes), Opt("space", spaces),
       Opt("cop", {"ca", "cg", "cs", "lu", "cv"}), Opt("nc", {"nc"}), Opt("l1ev", l1ev), Opt("cache", {"L2::cache_hint"}),
       Opt("prefetch", prefetch), Req("type", scalar_types)},
      {d.Dtypes(LdDstDtypes), Addr("addr"), policy}, CheckLd);
  add("ld_vec", "ld",
      {Opt("sem", sem_ld), Opt("scope", scopes), Opt("space", spaces), Opt("cop", {"ca", "cg", "cs", "lu", "cv"}),
       Opt("nc", {"nc"}), Opt("l1ev", l1ev), Opt("cache", {"L2::cache_hint"}), Opt("prefetch", prefetch),
       Req("vec", {"v2", "v4"}), Req("type", mem_types)},
      {d.LanesOf(VecLanes), Addr("addr"), policy}, CheckLdVec);
  add("ld_vec256", "ld",
      {Opt("sem", sem_ld), Opt("scope", scopes), Opt("space", {"global"}), Opt("cop", {"ca", "cg", "cs", "lu", "cv"}),
       Opt("nc", {"nc"}), Opt("l1ev", l1ev), Opt("l2ev", l2ev), Opt("prefetch", prefetch), Req("vec", {"v4", "v8"}),
       Req("type", types256)},
      {d.LanesOf(VecLanes).SinkIf(Sink256), Addr("addr")}, CheckLdVec256);
  add("st", "st",
      {Opt("mmio", {"mmio"}), Opt("sem", sem_st), Opt("scope", scopes), Opt("space", spaces),
       Opt("cop", {"wb", "cg", "cs", "wt"}), Opt("l1ev", l1ev), Opt("cache", {"L2::cache_hint"}), Req("type", scalar_types)},
      {Addr("addr"), Reg("value"), policy}, CheckSt);
  add("st_vec", "st",
      {Opt("sem", sem_st), Opt("scope", scopes), Opt("space", spaces), Opt("cop", {"wb", "cg", "cs", "wt"}),
       Opt("l1ev", l1ev), Opt("cache", {"L2::cache_hint"}), Req("vec", {"v2", "v4"}), Req("type", mem_types)},
      {Addr("addr"), Reg("value").LanesOf(VecLanes), policy}, CheckStVec);
  add("st_vec256", "st",
      {Opt("sem", sem_st), Opt("scope", scopes), Opt("space", {"global"}), Opt("cop", {"wb", "cg", "cs", "wt"}),
       Opt("l1ev", l1ev), Opt("l2ev", l2ev), Req("vec", {"v4", "v8"}), Req("type", types256)},
      {Addr("addr"), Reg("value").LanesOf(VecLanes).SinkIf(Sink256)}, CheckStVec256);
}

void AddMovAndArithmetic(const Adder& add, const Common& k) {
  const Operand &d = k.d, &a = k.a, &b = k.b, &c = k.c;
  // mov (ISA 9.7.9.4): the scalar line, and the pack/unpack lines whose vector side is a
  // register group (`mov.b64 d, {lo, hi}`); an unpacked lane may be `_`.
  add("mov", "mov", {Req("type", {"pred", "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"})},
      {d, a});
  for (const auto& [whole, part, lanes] : std::vector<std::tuple<std::string, std::string, int>>{
           {"b32", "b16", 2}, {"b64", "b32", 2}, {"b64", "b16", 4}, {"b128", "b64", 2}, {"b128", "b32", 4}}) {
    std::string group = absl::StrCat(part, "x", lanes);
    add("mov_pack_" + group, "mov", {Req("type", {whole})}, {d.Type(whole), a.Type(part).Lanes(lanes)});
    add("mov_unpack_" + group, "mov", {Req("type", {whole})}, {d.Type(part).Lanes(lanes).Sink(), a.Type(whole)});
  }

  // Integer arithmetic (ISA 9.7.1) beside the floating-point lines sharing its mnemonics.
  const Strings rnd = {"rn", "rz", "rm", "rp"}, half_types = {"f16", "f16x2", "bf16", "bf16x2"};
  const Strings wide_types = {"u16", "s16", "u32", "s32"};
  add("add_int", "add", {Opt("sat", {"sat"}), Req("type", {"u16", "u32", "u64", "u16x2", "s16", "s32", "s64", "s16x2"})},
      {d, a, b}, CheckIntAddSub);
  add("sub_int", "sub", {Opt("sat", {"sat"}), Req("type", kIntTypes)}, {d, a, b}, CheckIntAddSub);
  add("mul_int", "mul", {Req("mode", {"hi", "lo"}), Req("type", kIntTypes)}, {d, a, b});
  add("mul_wide", "mul", {Req("mode", {"wide"}), Req("type", wide_types)}, {d.TypeOf(WideType), a, b});
  add("mad_int", "mad", {Req("mode", {"hi", "lo"}), Opt("sat", {"sat"}), Req("type", kIntTypes)}, {d, a, b, c}, CheckIntMad);
  add("mad_wide", "mad", {Req("mode", {"wide"}), Req("type", wide_types)},
      {d.TypeOf(WideType), a, b, c.TypeOf(WideType)});
  add("div", "div", {Req("type", kIntTypes)}, {d, a, b});
  add("abs", "abs", {Req("type", {"s16", "s32", "s64"})}, {d, a});
  // Single/double precision (9.7.3) with the mixed-precision source of 9.7.5, and half (9.7.4).
  for (const char* op : {"add", "sub"}) {
    add(op, op,
        {Opt("rnd", rnd), Opt("ftz", {"ftz"}), Opt("sat", {"sat"}), Req("type", {"f32", "f64", "f32x2"}),
         Opt("srctype", {"f16", "bf16"})},
        {d, a.Type("srctype"), b}, CheckFloatArith);
    add(absl::StrCat(op, "_half"), op, {Opt("rnd", {"rn"}), Opt("ftz", {"ftz"}), Opt("sat", {"sat"}), Req("type", half_types)},
        {d, a, b}, CheckHalfArith);
  }
  add("mul", "mul", {Opt("rnd", rnd), Opt("ftz", {"ftz"}), Opt("sat", {"sat"}), Req("type", {"f32", "f64", "f32x2"})},
      {d, a, b}, CheckFloatArith);
  add("mul_half", "mul", {Opt("rnd", {"rn"}), Opt("ftz", {"ftz"}), Opt("sat", {"sat"}), Req("type", half_types)}, {d, a, b},
      CheckHalfArith);
  add("fma", "fma",
      {Req("rnd", rnd), Opt("ftz", {"ftz"}), Opt("sat", {"sat"}), Req("type", {"f32", "f64", "f32x2"}),
       Opt("srctype", {"f16", "bf16"})},
      {d, a.Type("srctype"), b.Type("srctype"), c}, CheckFloatArith);
  add("fma_half", "fma",
      {Req("rnd", {"rn"}), Opt("ftz", {"ftz"}), Opt("sat", {"sat"}), Opt("oob", {"oob"}), Opt("relu", {"relu"}),
       Req("type", half_types)},
      {d, a, b, c}, CheckHalfFma);
  add("mad_f", "mad", {Req("rnd", rnd), Opt("ftz", {"ftz"}), Opt("sat", {"sat"}), Req("type", {"f32", "f64"})}, {d, a, b, c},
      CheckFloatArith);
  add("div_f", "div", {Req("mode", {"approx", "full", "rn", "rz", "rm", "rp"}), Opt("ftz", {"ftz"}), Req("type", {"f32", "f64"})},
      {d, a, b}, CheckDivF);
  add("sqrt", "sqrt", {Req("mode", {"approx", "rn", "rz", "rm", "rp"}), Opt("ftz", {"ftz"}), Req("type", {"f32", "f64"})},
      {d, Reg("value")}, CheckSqrt);
  add("rcp", "rcp", {Req("mode", {"approx", "rn", "rz", "rm", "rp"}), Opt("ftz", {"ftz"}), Req("type", {"f32", "f64"})},
      {d, Reg("value")}, CheckRcp);
  add("ex2", "ex2", {Req("mode", {"approx"}), Opt("ftz", {"ftz"}), Req("type", {"f32"})}, {d, Reg("value")});
  add("ex2_half", "ex2", {Req("mode", {"approx"}), Opt("ftz", {"ftz"}), Req("type", half_types)}, {d, Reg("value")},
      CheckHalfEx2);
  add("abs_f", "abs", {Opt("ftz", {"ftz"}), Req("type", {"f32", "f64"})}, {d, a}, CheckAbsNeg);
  add("abs_half", "abs", {Opt("ftz", {"ftz"}), Req("type", half_types)}, {d, a}, CheckHalfAbsNeg);
}

void AddCompareLogic(const Adder& add, const Common& k) {
  const Operand &d = k.d, &a = k.a, &b = k.b, &c = k.c, &mask = k.mask;
  // setp / set / slct (ISA 9.7.6, 9.7.7): {.BoolOp} adds a .pred source, `p|q` a second result.
  const Operand p = Reg("p").W().Type("pred"), q = Reg("q").W().Type("pred"), pc = Reg("c").Type("pred");
  const Strings boolops = {"and", "or", "xor"};
  for (bool boolop : {false, true}) {
    for (bool pq : {false, true}) {
      std::string suffix = absl::StrCat(boolop ? "_bool" : "", pq ? "_pq" : "");
      std::vector<Operand> ops = {p};
      if (pq) ops.push_back(q);
      ops.push_back(a);
      ops.push_back(b);
      if (boolop) ops.push_back(pc);
      std::vector<Slot> slots = {Req("cmp", kCmpOps)};
      if (boolop) slots.push_back(Req("boolop", boolops));
      slots.push_back(Opt("ftz", {"ftz"}));
      slots.push_back(Req("type", kCmpTypes));
      add("setp" + suffix, "setp", slots, ops, CheckCmp);
      slots.front() = Req("cmp", kHalfCmpOps);
      slots.back() = Req("type", pq ? Strings{"f16x2", "bf16x2"} : Strings{"f16", "bf16"});
      add("setp_half" + suffix, "setp", slots, ops, CheckHalfSetp);
    }
    std::vector<Operand> ops = {d.Type("dtype"), a.Type("stype"), b.Type("stype")};
    if (boolop) ops.push_back(pc);
    std::vector<Slot> slots = {Req("cmp", kCmpOps)};
    if (boolop) slots.push_back(Req("boolop", boolops));
    slots.push_back(Opt("ftz", {"ftz"}));
    slots.push_back(Req("dtype", {"u32", "s32", "f32"}));
    slots.push_back(Req("stype", kCmpTypes));
    add(boolop ? "set_bool" : "set", "set", slots, ops, CheckCmp);
    slots.front() = Req("cmp", kHalfCmpOps);
    slots[slots.size() - 2] = Req("dtype", {"f16", "bf16", "u16", "s16", "u32", "s32", "f16x2", "bf16x2"});
    slots.back() = Req("stype", {"b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f16", "f32", "f64", "bf16",
                                 "f16x2", "bf16x2"});
    add(boolop ? "set_half_bool" : "set_half", "set", slots, ops, CheckHalfSet);
  }
  add("slct", "slct", {Opt("ftz", {"ftz"}), Req("dtype", kCmpTypes), Req("ctype", {"s32", "f32"})},
      {d.Type("dtype"), a.Type("dtype"), b.Type("dtype"), c.Type("ctype")}, CheckSlct);

  // Logic and shift (ISA 9.7.8).
  add("cnot", "cnot", {Req("type", {"b16", "b32", "b64"})}, {d, a});
  add("lop3", "lop3", {Req("type", {"b32"})}, {d, a, b, c, Imm("immLut")});
  add("lop3_bool", "lop3", {Req("boolop", {"or", "and"}), Req("type", {"b32"})},
      {d, Reg("p").W().Type("pred"), a, b, c, Imm("immLut"), Reg("q").Type("pred")});
  add("shl", "shl", {Req("type", {"b16", "b32", "b64"})}, {d, a, b.Type("u32")});

  // redux.sync (ISA 9.7.13.10): arithmetic on a typed word, bitwise on an untyped one.
  add("redux_sync", "redux_sync", {Req("op", {"add", "min", "max"}), Req("type", {"u32", "s32"})}, {d, a, mask});
  add("redux_sync_bitwise", "redux_sync", {Req("op", {"and", "or", "xor"}), Req("type", {"b32"})},
      {d.Type("b32i"), a.Type("b32i"), mask});
  add("redux_sync_f32", "redux_sync", {Req("op", {"min", "max"}), Opt("abs", {"abs"}), Opt("nan", {"NaN"}), Req("type", {"f32"})},
      {d, a, mask});

  // isspacep (ISA 9.7.9.20): a .pred answer about a generic pointer.
  add("isspacep", "isspacep",
      {Req("space", {"const", "global", "local", "shared", "shared::cta", "shared::cluster", "param", "param::entry"})},
      {Reg("p").W().Type("pred"), Ptr("a")});
}

void AddAsyncAndAtomics(const Adder& add, const Common& k) {
  const Operand &d = k.d, &b = k.b, &policy = k.policy;
  const Strings &scopes = k.scopes;
  const Slot &completion = k.completion;
  // multimem.ld_reduce (ISA 9.7.9.12): integer and floating-point lines, the latter with vectors.
  const Strings mm_sem = {"weak", "relaxed", "acquire"}, half_f = {"f16", "f16x2", "bf16", "bf16x2", "f32", "f64"};
  add("multimem_ld_reduce", "multimem_ld_reduce",
      {Opt("sem", mm_sem), Opt("scope", scopes), Opt("space", {"global"}), Req("op", {"min", "max", "add", "and", "or", "xor"}),
       Req("type", {"b32", "b64", "u32", "u64", "s32", "s64"})},
      {d, Addr("addr")}, CheckMultimemInt);
  add("multimem_ld_reduce_f", "multimem_ld_reduce",
      {Opt("sem", mm_sem), Opt("scope", scopes), Opt("space", {"global"}), Req("op", {"min", "max", "add"}),
       Opt("acc", {"acc::f32"}), Req("type", half_f)},
      {d, Addr("addr")}, CheckMultimemFloat);
  add("multimem_ld_reduce_f_vec", "multimem_ld_reduce",
      {Opt("sem", mm_sem), Opt("scope", scopes), Opt("space", {"global"}), Req("op", {"min", "max", "add"}),
       Opt("acc", {"acc::f32"}), Req("vec", {"v2", "v4", "v8"}), Req("type", half_f)},
      {d.LanesOf(VecLanes), Addr("addr")}, CheckMultimemFloat);

  // st.async (ISA 9.7.9.13): the mbarrier-completed lines and the release line.
  add("st_async", "st_async",
      {Opt("weak", {"weak"}), Opt("space", {"shared::cluster"}), completion,
       Req("type", {"b32", "b64", "b128", "u32", "u64", "s32", "s64", "f32", "f64"})},
      {Addr("addr"), b, Addr("mbar")});
  add("st_async_vec", "st_async",
      {Opt("weak", {"weak"}), Opt("space", {"shared::cluster"}), completion, Req("vec", {"v2", "v4"}),
       Req("type", {"b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64"})},
      {Addr("addr"), b.LanesOf(VecLanes), Addr("mbar")}, CheckStAsyncVec);
  add("st_async_release", "st_async",
      {Opt("mmio", {"mmio"}), Req("sem", {"release"}), Req("scope", {"gpu", "sys"}), Opt("space", {"global"}),
       Req("type", {"b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"})},
      {Addr("addr"), b}, CheckAsyncRelease);

  // atom (ISA 9.7.13.5): the .op line, .cas, .exch, the half-precision adds and two vector lines.
  const Strings atom_sem = {"relaxed", "acquire", "release", "acq_rel"};
  const Strings atom_spaces = {"global", "shared", "shared::cta", "shared::cluster"};
  const Operand value = Reg("value");
  add("atom", "atom",
      {Opt("sem", atom_sem), Opt("scope", scopes), Opt("space", atom_spaces),
       Req("op", {"and", "or", "xor", "add", "inc", "dec", "min", "max"}), Opt("cache", {"L2::cache_hint"}),
       Req("type", {"b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64"})},
      {d, Addr("addr"), value, policy}, CheckAtom);
  add("atom_cas", "atom",
      {Opt("sem", atom_sem), Opt("scope", scopes), Opt("space", atom_spaces), Req("op", {"cas"}),
       Req("type", {"b16", "b32", "b64", "b128"})},
      {d, Addr("addr"), Reg("compare"), value});
  add("atom_exch", "atom",
      {Opt("sem", atom_sem), Opt("scope", scopes), Opt("space", atom_spaces), Req("op", {"exch"}),
       Opt("cache", {"L2::cache_hint"}), Req("type", {"b32", "b64", "b128"})},
      {d, Addr("addr"), value, policy}, CheckCacheHint);
  add("atom_half", "atom",
      {Opt("sem", atom_sem), Opt("scope", scopes), Opt("space", atom_spaces), Req("op", {"add"}), Req("noftz", {"noftz"}),
       Opt("cache", {"L2::cache_hint"}), Req("type", {"f16", "bf16", "f16x2", "bf16x2"})},
      {d, Addr("addr"), value, policy}, CheckCacheHint);
  add("atom_vec_half", "atom",
      {Opt("sem", atom_sem), Opt("scope", scopes), Opt("space", {"global"}), Req("op", {"add", "min", "max"}),
       Req("noftz", {"noftz"}), Opt("cache", {"L2::cache_hint"}), Req("vec", {"v2", "v4", "v8"}),
       Req("type", {"f16", "bf16", "f16x2", "bf16x2"})},
      {d.LanesOf(VecLanes), Addr("addr"), value.LanesOf(VecLanes), policy}, CheckAtomVec);
  add("atom_vec_f32", "atom",
      {Opt("sem", atom_sem), Opt("scope", scopes), Opt("space", {"global"}), Req("op", {"add"}),
       Opt("cache", {"L2::cache_hint"}), Req("vec", {"v2", "v4"}), Req("type", {"f32"})},
      {d.LanesOf(VecLanes), Addr("addr"), value.LanesOf(VecLanes), policy});

  // red.async (ISA 9.7.13.7).
  add("red_async", "red_async",
      {Req("sem", {"relaxed"}), Req("scope", {"cluster"}), Opt("space", {"shared::cluster"}), completion,
       Req("op", {"inc", "dec", "min", "max", "and", "or", "xor", "add"}), Req("type", {"u32", "s32", "u64", "b32"})},
      {Addr("addr"), value, Addr("mbar")}, CheckRedAsync);
  add("red_async_release", "red_async",
      {Opt("mmio", {"mmio"}), Req("sem", {"release"}), Req("scope", {"gpu", "sys"}), Opt("space", {"global"}),
       Req("op", {"add"}), Req("type", {"u32", "s32", "u64", "s64"})},
      {Addr("addr"), value}, CheckAsyncRelease);
}

void AddTcgen05(const Adder& add, const Common& k) {
  const Operand &mbar = k.mbar;
  const Slot &cta_group = k.cta_group;
  // tcgen05 (ISA 9.7.16): tensor-memory allocation, ld/st, cp, mma, fences and commits. A tmem
  // address is a uint32 and takes no T.ptx.addr offset.
  const Slot sync = Req("sync", {"sync"}), aligned = Req("aligned", {"aligned"});
  const Operand tmem = Addr("taddr").Space("tmem").NoOffset();
  add("tcgen05_alloc", "tcgen05",
      {Req("action", {"alloc"}), cta_group, sync, aligned, Opt("space", {"shared::cta"}), Req("type", {"b32"})},
      {Addr("dst").Space("shared::cta"), Reg("ncols").Type("u32")});
  add("tcgen05_dealloc", "tcgen05", {Req("action", {"dealloc"}), cta_group, sync, aligned, Req("type", {"b32"})},
      {Reg("taddr").Type("u32"), Reg("ncols").Type("u32")});
  add("tcgen05_relinquish_alloc_permit", "tcgen05", {Req("action", {"relinquish_alloc_permit"}), cta_group, sync, aligned}, {});
  const Strings ldst_shapes = {"16x64b", "16x128b", "16x256b", "32x32b"};
  const Strings nums = {"x1", "x2", "x4", "x8", "x16", "x32", "x64", "x128"};
  const Operand regs = Reg("r").Type("b32").LanesOf(Tcgen05LdStLanes);
  add("tcgen05_ld", "tcgen05",
      {Req("action", {"ld"}), sync, aligned, Req("shape", ldst_shapes), Req("num", nums), Opt("pack", {"pack::16b"}),
       Req("type", {"b32"})},
      {regs.W(), tmem}, CheckTcgen05LdSt);
  add("tcgen05_ld_split", "tcgen05",
      {Req("action", {"ld"}), sync, aligned, Req("shape", {"16x32bx2"}), Req("num", nums), Opt("pack", {"pack::16b"}),
       Req("type", {"b32"})},
      {regs.W(), tmem, Imm("imm_half_splitoff")});
  add("tcgen05_st", "tcgen05",
      {Req("action", {"st"}), sync, aligned, Req("shape", ldst_shapes), Req("num", nums), Opt("unpack", {"unpack::16b"}),
       Req("type", {"b32"})},
      {tmem, regs}, CheckTcgen05LdSt);
  add("tcgen05_st_split", "tcgen05",
      {Req("action", {"st"}), sync, aligned, Req("shape", {"16x32bx2"}), Req("num", nums), Opt("unpack", {"unpack::16b"}),
       Req("type", {"b32"})},
      {tmem, Imm("imm_half_splitoff"), regs});
  add("tcgen05_wait", "tcgen05", {Req("action", {"wait::ld", "wait::st"}), sync, aligned}, {});
  add("tcgen05_cp", "tcgen05",
      {Req("action", {"cp"}), cta_group, Req("shape", {"128x256b", "4x256b", "128x128b", "64x128b", "32x128b"}),
       Opt("multicast", {"warpx2::02_13", "warpx2::01_23", "warpx4"}), Opt("dst_fmt", {"b8x16"}),
       Opt("src_fmt", {"b6x16_p32", "b4x16_p64"})},
      {tmem, Reg("s_desc").Type("b64")}, CheckTcgen05Cp);
  // mma: the A operand from shared memory (a descriptor) or from tensor memory, optionally
  // block-scaled (by a scale_vec or a block size), or the weight-stationary .ws lines.
  const Strings kinds = {"kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8"};
  const Strings mx_kinds = {"kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4"};
  const Operand d_tmem = tmem, a_desc = Reg("a_desc").Type("u64"), a_tmem = Addr("a_tmem").Space("tmem").NoOffset();
  const Operand b_desc = Reg("b_desc").Type("u64"), idesc = Reg("idesc").Type("u32");
  const Operand enable = Reg("enable_input_d").Type("pred");
  const Operand sfa = Addr("sfa_tmem").Space("tmem").NoOffset(), sfb = Addr("sfb_tmem").Space("tmem").NoOffset();
  for (bool ts : {false, true}) {
    const Operand& a_op = ts ? a_tmem : a_desc;
    std::string side = ts ? "_ts" : "_ss";
    add("tcgen05_mma" + side, "tcgen05", {Req("action", {"mma"}), cta_group, Req("kind", kinds)},
        {d_tmem, a_op, b_desc, idesc, Reg("disable_output_lane").Type("u32").LanesOf(Tcgen05MaskLanes), enable});
    add("tcgen05_mma_block_scale" + side, "tcgen05",
        {Req("action", {"mma"}), cta_group, Req("kind", mx_kinds), Req("block_scale", {"block_scale"}),
         Req("scale_vec", {"scale_vec::1X", "scale_vec::2X", "scale_vec::4X"})},
        {d_tmem, a_op, b_desc, idesc, sfa, sfb, enable}, CheckTcgen05ScaleVec);
    add("tcgen05_mma_block_scale_block" + side, "tcgen05",
        {Req("action", {"mma"}), cta_group, Req("kind", mx_kinds), Req("block_scale", {"block_scale"}),
         Req("block_size", {"block16", "block32"})},
        {d_tmem, a_op, b_desc, idesc, sfa, sfb, enable}, CheckTcgen05BlockSize);
    add("tcgen05_mma_ws" + side, "tcgen05",
        {Req("action", {"mma"}), Req("ws", {"ws"}), Req("cta_group", {"cta_group::1"}), Req("kind", kinds)},
        {d_tmem, a_op, b_desc, idesc, enable, Reg("zero_col_mask").Type("u64")});
  }
  add("tcgen05_fence", "tcgen05", {Req("action", {"fence::before_thread_sync", "fence::after_thread_sync"})}, {});
  const Slot arrive_one = Req("completion", {"mbarrier::arrive::one"});
  add("tcgen05_commit", "tcgen05",
      {Req("action", {"commit"}), cta_group, arrive_one, Opt("space", {"shared::cluster"}), Req("type", {"b64"})}, {mbar});
  add("tcgen05_commit_multicast", "tcgen05",
      {Req("action", {"commit"}), cta_group, arrive_one, Opt("space", {"shared::cluster"}),
       Req("multicast", {"multicast::cluster"}), Req("type", {"b64"})},
      {mbar, Reg("mask").Type("u16")});
}

void AddCopies(const Adder& add, const Common& k) {
  const Operand &policy = k.policy;
  const Strings &prefetch = k.prefetch;
  // cp (ISA 9.7.9.25): cp.async (with its src-size / ignore-src forms), the bulk copies, the
  // tensor (TMA) copies whose [tensorMap, coords] operand takes no T.ptx.addr offset, and the
  // group waits.
  const Slot async = Req("api", {"async"}), bulk = Req("kind", {"bulk"}), opt_cache = Opt("cache", {"L2::cache_hint"});
  const Slot tx_bytes = Req("completion", {"mbarrier::complete_tx::bytes"}), bulk_group = Req("completion", {"bulk_group"});
  const Strings dims = {"1d", "2d", "3d", "4d", "5d"};
  const Operand global_src = Addr("src_mem").Space("global"), size = Reg("size").Type("u32");
  const Operand shared_mbar = Addr("mbar").Space("shared");
  const Operand groups = Imm("group").Choices({"0", "1", "2", "3", "4", "5", "6", "7"});
  add("cp_async_bulk_prefetch", "cp",
      {async, bulk, Req("op", {"prefetch"}), Req("level", {"L2"}), Req("src", {"global"}), opt_cache},
      {global_src, size, policy});
  add("cp_async_wait_group", "cp", {async, Req("action", {"wait_group"})}, {groups});
  add("cp_async_bulk_wait_group", "cp", {async, bulk, Req("action", {"wait_group"}), Opt("read", {"read"})}, {groups});
  for (const char* cop : {"ca", "cg"}) {
    std::vector<Slot> slots = {async, Req("cop", {cop}), Req("dst", {"shared", "shared::cta"}), Req("src", {"global"}), opt_cache,
                               Opt("prefetch", prefetch)};
    Operand cp_size = Imm("cp_size").Choices(std::string(cop) == "ca" ? Strings{"4", "8", "16"} : Strings{"16"});
    std::vector<Operand> base = {Addr("dst_mem").Space("shared"), global_src, cp_size};
    std::string name = absl::StrCat("cp_async_", cop);
    std::vector<Operand> ops = base;
    ops.push_back(policy);
    add(name, "cp", slots, ops);
    ops = base;
    ops.push_back(Reg("src_size").Type("u32"));
    ops.push_back(policy);
    add(name + "_src_size", "cp", slots, ops);
    ops = base;
    ops.push_back(Reg("ignore_src").Type("pred"));
    ops.push_back(policy);
    add(name + "_ignore_src", "cp", slots, ops);
  }
  add("cp_async_commit_group", "cp", {async, Req("action", {"commit_group"})}, {});
  add("cp_async_wait_all", "cp", {async, Req("action", {"wait_all"})}, {});
  add("cp_async_bulk_g2s_cta", "cp",
      {async, bulk, Req("dst", {"shared::cta"}), Req("src", {"global"}), tx_bytes, opt_cache, Opt("ignore_oob", {"ignore_oob"})},
      {Addr("dst_mem").Space("shared::cta"), global_src, size, Reg("ignore_bytes_left").Type("u32").LanesOf(IgnoreOobLanes),
       Reg("ignore_bytes_right").Type("u32").LanesOf(IgnoreOobLanes), shared_mbar, policy});
  const Operand cta_mask = Reg("cta_mask").Type("u16").LanesOf(MulticastLanes);
  add("cp_async_bulk_g2s_cluster", "cp",
      {async, bulk, Req("dst", {"shared::cluster"}), Req("src", {"global"}), tx_bytes, Opt("multicast", {"multicast::cluster"}),
       opt_cache},
      {Addr("dst_mem").Space("shared::cluster"), global_src, size, shared_mbar, cta_mask, policy});
  add("cp_async_bulk_s2c", "cp", {async, bulk, Req("dst", {"shared::cluster"}), Req("src", {"shared::cta"}), tx_bytes},
      {Addr("dst_mem").Space("shared::cluster"), Addr("src_mem").Space("shared::cta"), size, shared_mbar});
  add("cp_async_bulk_s2g", "cp",
      {async, bulk, Req("dst", {"global"}), Req("src", {"shared::cta"}), bulk_group, opt_cache, Opt("cp_mask", {"cp_mask"})},
      {Addr("dst_mem").Space("global"), Addr("src_mem").Space("shared::cta"), size, policy,
       Reg("byte_mask").Type("u16").LanesOf(CpMaskLanes)});
  const Operand tmap = Addr("tmap").Space("global").NoOffset(), coords = Reg("coords").Type("s32").LanesOf(TmaCoordsLanes);
  const Slot tensor = Req("unit", {"tensor"}), dim = Req("dim", dims), cta_group_opt = Opt("cta_group", {"cta_group::1", "cta_group::2"});
  add("cp_async_bulk_tensor_g2s_cluster", "cp",
      {async, bulk, tensor, dim, Req("dst", {"shared::cluster"}), Req("src", {"global"}), Opt("load_mode", {"tile", "tile::gather4"}),
       tx_bytes, Opt("multicast", {"multicast::cluster"}), cta_group_opt, opt_cache},
      {Addr("dst_mem").Space("shared::cluster"), tmap, coords, shared_mbar, cta_mask, policy}, CheckTmaGather4);
  add("cp_async_bulk_tensor_g2s_cta", "cp",
      {async, bulk, tensor, dim, Req("dst", {"shared::cta"}), Req("src", {"global"}), Opt("load_mode", {"tile", "tile::gather4"}),
       tx_bytes, cta_group_opt, opt_cache},
      {Addr("dst_mem").Space("shared::cta"), tmap, coords, shared_mbar, policy}, CheckTmaGather4);
  add("cp_async_bulk_tensor_s2g", "cp",
      {async, bulk, tensor, dim, Req("dst", {"global"}), Req("src", {"shared::cta"}), Opt("load_mode", {"tile", "tile::scatter4"}),
       bulk_group, opt_cache},
      {tmap, coords, Addr("src_mem").Space("shared::cta"), policy}, CheckTmaGather4);
  add("cp_reduce_async_bulk_tensor", "cp",
      {Req("op", {"reduce"}), async, bulk, tensor, dim, Req("dst", {"global"}), Req("src", {"shared::cta"}),
       Req("redop", {"add", "min", "max", "inc", "dec", "and", "or", "xor"}), Opt("load_mode", {"tile"}), bulk_group, opt_cache},
      {tmap, coords, Addr("src_mem").Space("shared::cta"), policy});
  add("cp_async_bulk_tensor_prefetch", "cp",
      {async, bulk, Req("action", {"prefetch"}), tensor, dim, Req("level", {"L2"}), Req("src", {"global"}),
       Opt("load_mode", {"tile", "tile::gather4"}), opt_cache},
      {tmap, coords, policy}, CheckTmaGather4);
  add("cp_async_bulk_commit_group", "cp", {async, bulk, Req("action", {"commit_group"})}, {});
  add("cp_async_mbarrier_arrive", "cp",
      {async, Req("target", {"mbarrier"}), Req("action", {"arrive"}), Opt("noinc", {"noinc"}), Opt("space", {"shared", "shared::cta"}),
       Req("type", {"b64"})},
      {Addr("addr")});
}

std::vector<Entry> BuildTable() {
  std::vector<Entry> t;
  const Adder add{&t};
  const Common k;
  AddLoadsStores(add, k);
  AddMovAndArithmetic(add, k);
  AddCompareLogic(add, k);
  AddAsyncAndAtomics(add, k);
  AddTcgen05(add, k);
  AddCopies(add, k);
  return t;
}

const std::vector<Entry>& Table() {
  static const std::vector<Entry>* const kTable = new std::vector<Entry>(BuildTable());
  return *kTable;
}

// ------------------------------------------------------------------ resolution

std::string OperandType(const Operand& o, const ModMap& m) {
  if (o.type_fn) return o.type_fn(m);
  std::string key = o.type.empty() ? "type" : o.type;
  auto it = m.find(key);
  if (it == m.end()) return key;  // a type token
  return it->second.empty() ? Get(m, "type") : it->second;
}

// An address operand: a pointer, or a uint64 handle; a uint32 only in a shared state space.
std::optional<std::string> CheckAddress(const Entry& e, const Operand& o, const PtxArg& v, const ModMap& m) {
  bool pointer = v.dtype == "handle";
  if (o.kind == Kind::kPtr) {
    if (pointer) return std::nullopt;
    return absl::StrCat(e.name, ": operand '", o.name, "' must be a pointer");
  }
  std::string space = o.space.empty() ? Get(m, "space") : o.space;
  if (space == "tmem") {  // a tensor-memory address is a packed (row, column) uint32
    if (v.dtype == "uint32") return std::nullopt;
    return absl::StrCat(e.name, ": operand '", o.name, "' is a tmem address and must be a uint32");
  }
  if (StartsWith(space, "shared")) {
    if (pointer || v.dtype == "uint32") return std::nullopt;
    return absl::StrCat(e.name, ": operand '", o.name, "' must be a shared-scope pointer or a uint32 shared address");
  }
  if (pointer || v.dtype == "uint64") return std::nullopt;
  if (v.dtype == "uint32") return absl::StrCat(e.name, ": a uint32 address requires the shared state space");
  return absl::StrCat(e.name, ": operand '", o.name, "' must be a pointer or uint64 handle, got ", v.dtype);
}

// One operand's non-sunk lanes (`idx` into the call's operands); the error names the lane.
std::optional<PtxError> CheckOperand(const Entry& e, const Operand& o, const ModMap& m,
                                     const std::vector<PtxArg>& args, const std::vector<int>& idx) {
  auto fail = [&](int i, std::string msg) { return PtxError{absl::StrCat(e.name, ": ", msg), i}; };
  bool offset = std::any_of(idx.begin(), idx.end(), [&](int i) { return args[i].form == PtxArg::Form::kAddrOffset; });
  if (offset && (o.kind != Kind::kAddr || !o.addr_offset)) {
    return fail(idx[0], absl::StrCat("operand '", o.name, "' does not support T.ptx.addr(...)"));
  }
  std::string type = o.kind == Kind::kReg ? OperandType(o, m) : "";
  bool is_pred = o.kind == Kind::kReg && type == "pred";
  for (int i : idx) {
    if (args[i].pred_tag && !is_pred) {
      return fail(i, absl::StrCat("operand '", o.name, "' is not a .pred operand, so it takes no T.ptx.pred(...) value"));
    }
  }
  if (o.kind == Kind::kAddr || o.kind == Kind::kPtr) {
    for (int i : idx) {
      if (auto err = CheckAddress(e, o, args[i], m)) return PtxError{*err, i};
    }
    return std::nullopt;
  }
  if (o.kind == Kind::kImm) {
    for (int i : idx) {
      const PtxArg& v = args[i];
      bool integer = v.const_int || (v.literal == PtxArg::Literal::kNone && !v.dtype.empty() &&
                                     (StartsWith(v.dtype, "int") || StartsWith(v.dtype, "uint")));
      if (!integer || (!o.imm_choices.empty() && !v.const_int)) {
        return fail(i, absl::StrCat("operand '", o.name, "' is an immediate in the instruction text and needs an integer constant"));
      }
      if (!o.imm_choices.empty() && !In(std::to_string(v.int_value), o.imm_choices)) {
        return fail(i, absl::StrCat("operand '", o.name, "' must be one of ", absl::StrJoin(o.imm_choices, ", "), ", got ", v.int_value));
      }
    }
    return std::nullopt;
  }
  if (is_pred) {
    for (int i : idx) {
      const PtxArg& v = args[i];
      if (o.rw == Rw::kWrite) {
        if (!v.lvalue || v.dtype != "uint32") {
          return fail(i, absl::StrCat("operand '", o.name, "' is a .pred result: a writable uint32 scalar or buffer element"));
        }
      } else if (v.pred_tag) {
        if (v.literal == PtxArg::Literal::kNone && !In(v.dtype, {"bool", "uint32", "int32"})) {
          return fail(i, absl::StrCat("T.ptx.pred(...) takes a bool/uint32/int32 expression, got ", v.dtype));
        }
      } else if (v.literal != PtxArg::Literal::kBool && v.dtype != "bool") {
        return fail(i, absl::StrCat("operand '", o.name, "' is a .pred source: pass a bool expression or tag an integer "
                                    "as T.ptx.pred(x)"));
      }
    }
    return std::nullopt;
  }
  Strings allowed = o.dtypes_fn ? o.dtypes_fn(m) : TypeDtypes(type);
  if (allowed.empty()) return std::nullopt;  // a type the table cannot bind: left to the backend
  bool dst = o.rw == Rw::kWrite;
  for (int i : idx) {
    if (dst && !args[i].lvalue) {
      return fail(i, absl::StrCat("destination '", o.name, "' must be a writable scalar or buffer element (a T.let binding ",
                                  "or an expression is not a register)"));
    }
  }
  std::string role = dst ? "destination" : "operand";
  std::string named;
  for (int i : idx) {
    if (args[i].literal != PtxArg::Literal::kNone) continue;  // a bare literal takes the group's dtype
    if (named.empty()) {
      named = args[i].dtype;
    } else if (args[i].dtype != named) {
      return fail(i, absl::StrCat(role, " '", o.name, "' is one register group: its lanes must have one dtype, got ", named,
                                  " and ", args[i].dtype));
    }
  }
  std::string dtype = named.empty() ? allowed[0] : named;
  if (!In(dtype, allowed)) {
    int at = idx.empty() ? -1 : idx[0];
    for (int i : idx) if (args[i].literal == PtxArg::Literal::kNone) { at = i; break; }
    return fail(at, absl::StrCat(role, " '", o.name, "' must have dtype ", absl::StrJoin(allowed, " / "), " (from .", type,
                                 "), got ", dtype));
  }
  for (int i : idx) {
    if (args[i].literal == PtxArg::Literal::kFloat && !StartsWith(dtype, "float")) {
      return fail(i, allowed.size() > 1
                         ? absl::StrCat(role, " '", o.name, "' is .", type, ", so a bare float literal is ambiguous: write ",
                                        "the typed constant (T.float32(...) for its bits, T.", dtype, "(...) for a number)")
                         : absl::StrCat(role, " '", o.name, "' is .", type, ": a bare float literal would be truncated; write T.",
                                        dtype, "(...)"));
    }
  }
  return std::nullopt;
}

// Why an entry refused a call, and how far the call got: 0 its modifiers are incomplete, 1 they
// break a rule of the line, 2 the operand count differs, 3 an operand does not fit.
struct Staged {
  PtxError error;
  int stage;
};

// Whether `e`, with its slots filled as `filled`, accepts the operands.
std::optional<Staged> Emit(const Entry& e, const Strings& filled, const std::vector<PtxArg>& args) {
  Strings missing;
  ModMap m;
  for (size_t i = 0; i < e.slots.size(); ++i) {
    if (filled[i].empty() && !e.slots[i].optional) missing.push_back(e.slots[i].name);
    m[e.slots[i].name] = filled[i];
  }
  if (!missing.empty()) return Staged{{absl::StrCat(e.name, ": missing required modifier(s): ", absl::StrJoin(missing, ", "))}, 0};
  if (e.check) {
    if (std::string err = e.check(m); !err.empty()) return Staged{{absl::StrCat(e.name, ": ", err)}, 1};
  }
  std::vector<int> lanes;
  Strings names;
  int total = 0;
  for (const Operand& o : e.operands) {
    int n = o.lanes_fn ? o.lanes_fn(m) : o.lanes;
    lanes.push_back(n);
    total += n;
    if (n > 0) names.push_back(n > 1 ? absl::StrCat(o.name, "[", n, "]") : o.name);
  }
  if (static_cast<int>(args.size()) != total) {
    return Staged{{absl::StrCat(e.name, " expects ", total, " operand(s) (", absl::StrJoin(names, ", "), "), got ", args.size())}, 2};
  }
  int at = 0;
  for (size_t k = 0; k < e.operands.size(); ++k) {
    const Operand& o = e.operands[k];
    std::vector<int> real;
    for (int lane = 0; lane < lanes[k]; ++lane) {
      int i = at + lane;
      if (args[i].form != PtxArg::Form::kSink) {
        real.push_back(i);
        continue;
      }
      bool sinkable = o.kind == Kind::kReg && (o.sinkable_fn ? o.sinkable_fn(m) : o.sinkable);
      if (!sinkable) return Staged{{absl::StrCat(e.name, ": operand '", o.name, "' is not sinkable here, so it takes no T.ptx.SINK"), i}, 3};
    }
    if (lanes[k] > 0 && real.empty()) {
      return Staged{{absl::StrCat(e.name, ": at least one lane of '", o.name, "' must be a real register"), at}, 3};
    }
    if (auto err = CheckOperand(e, o, m, args, real)) return Staged{*err, 3};
    at += lanes[k];
  }
  return std::nullopt;
}

struct Candidate {
  const Entry* entry;
  Strings filled;
};

}  // namespace

bool PtxFamilyHasTable(const std::string& family) {
  for (const Entry& e : Table()) if (e.family == family) return true;
  return false;
}

std::optional<PtxError> CheckPtxCall(const std::string& family, const std::vector<std::string>& tokens,
                                     const std::vector<PtxArg>& args) {
  std::vector<Candidate> cands;
  for (const Entry& e : Table()) {
    if (e.family == family) cands.push_back({&e, Strings(e.slots.size())});
  }
  if (cands.empty()) return std::nullopt;
  // Each token fills the first open slot listing it, in every entry that has one.
  for (const std::string& tok : tokens) {
    if (tok.empty()) continue;
    std::vector<Candidate> next;
    for (Candidate c : cands) {
      for (size_t i = 0; i < c.entry->slots.size(); ++i) {
        if (c.filled[i].empty() && In(tok, c.entry->slots[i].choices)) {
          c.filled[i] = tok;
          next.push_back(std::move(c));
          break;
        }
      }
    }
    if (next.empty()) {
      Strings open;
      const Candidate& c = cands.front();
      for (size_t i = 0; i < c.entry->slots.size(); ++i) {
        if (c.filled[i].empty()) open.push_back(absl::StrCat(c.entry->slots[i].name, " in {", absl::StrJoin(c.entry->slots[i].choices, ","), "}"));
      }
      return PtxError{absl::StrCat("'", tok, "' is not a valid modifier for '", family, "'; open slots: ",
                                   open.empty() ? "(none)" : absl::StrJoin(open, "; "))};
    }
    cands = std::move(next);
  }
  // Every entry refused: report the ones the call came closest to matching.
  std::vector<Staged> errors;
  for (const Candidate& c : cands) {
    auto err = Emit(*c.entry, c.filled, args);
    if (!err) return std::nullopt;
    errors.push_back(*err);
  }
  int best = 0;
  for (const Staged& err : errors) best = std::max(best, err.stage);
  Strings lines;
  const PtxError* only = nullptr;
  for (const Staged& err : errors) {
    if (err.stage != best) continue;
    lines.push_back(err.error.message);
    only = &err.error;
  }
  if (lines.size() == 1) return *only;
  return PtxError{absl::StrCat("no '", family, "' syntax line matches these operands: ", absl::StrJoin(lines, "; "))};
}

}  // namespace kiln::script::parser
