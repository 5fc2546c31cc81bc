// Writer and reader of the IR node table, both driven by node reflection.
#include "compiler/ir/serialize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/type_registry.h"
#include "compiler/version.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/util/json_util.h"
#include "proto/ir.pb.h"

namespace kiln::ir {
namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'I', 'R', '\0', static_cast<char>(kIRFormatVersion)};

// ---------------------------------------------------------------- writer

class Writer {
 public:
  absl::StatusOr<kiln::v1::IRGraph> Run(const ObjectRef& root) {
    graph_.set_format_version(kIRFormatVersion);
    graph_.set_producer(absl::StrCat("kiln ", kKilnVersion));
    absl::StatusOr<int64_t> r = Write(root);
    if (!r.ok()) return r.status();
    graph_.set_root(*r);
    return std::move(graph_);
  }

 private:
  // Children first, iteratively (IR from a parser may nest deeply).
  absl::StatusOr<int64_t> Write(const ObjectRef& root) {
    if (!root.defined()) return -1;
    struct Frame {
      const Object* obj;
      bool expanded;
    };
    std::vector<Frame> stack = {{root.get(), false}};
    while (!stack.empty()) {
      Frame f = stack.back();
      if (index_.count(f.obj)) {
        stack.pop_back();
        continue;
      }
      if (!f.expanded) {
        stack.back().expanded = true;
        std::vector<const Object*> kids = Children(f.obj);
        for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
          if (!index_.count(*it)) stack.push_back({*it, false});
        }
        continue;
      }
      stack.pop_back();
      Emit(f.obj);
    }
    return index_.at(root.get());
  }

  static std::vector<const Object*> Children(const Object* o) {
    std::vector<const Object*> out;
    if (const auto* a = o->kind() == NodeKind::kArray ? static_cast<const ArrayNode*>(o) : nullptr) {
      for (const ObjectRef& x : a->data) {
        if (x.defined()) out.push_back(x.get());
      }
      return out;
    }
    if (const auto* m = o->kind() == NodeKind::kMap ? static_cast<const MapNode*>(o) : nullptr) {
      for (const auto& kv : m->data) {
        if (kv.first.defined()) out.push_back(kv.first.get());
        if (kv.second.defined()) out.push_back(kv.second.get());
      }
      return out;
    }
    for (const FieldInfo& f : ListFields(o)) {
      if (f.kind != FieldKind::kRef) continue;
      const ObjectRef& r = *static_cast<ObjectRef*>(f.addr);
      if (r.defined()) out.push_back(r.get());
    }
    return out;
  }

  int64_t Ref(const ObjectRef& r) const { return r.defined() ? index_.at(r.get()) : -1; }

  int32_t Source(const Span& span) {
    const std::string& name = span.source_name();
    auto it = sources_.find(name);
    if (it != sources_.end()) return it->second;
    int32_t id = graph_.sources_size();
    graph_.add_sources(name);
    sources_[name] = id;
    return id;
  }

  void Emit(const Object* o) {
    kiln::v1::IRNode* n = graph_.add_nodes();
    n->set_type(o->type_key());
    if (const auto* a = o->kind() == NodeKind::kArray ? static_cast<const ArrayNode*>(o) : nullptr) {
      for (const ObjectRef& x : a->data) n->add_items(Ref(x));
    } else if (const auto* m = o->kind() == NodeKind::kMap ? static_cast<const MapNode*>(o) : nullptr) {
      for (const auto& kv : m->data) {
        n->add_keys(Ref(kv.first));
        n->add_values(Ref(kv.second));
      }
    } else if (const auto* s = o->kind() == NodeKind::kString ? static_cast<const StringNode*>(o) : nullptr) {
      n->set_str(s->value);
    } else {
      for (const FieldInfo& f : ListFields(o)) {
        kiln::v1::IRField* out = n->add_fields();
        out->set_name(f.name);
        switch (f.kind) {
          case FieldKind::kBool: out->set_b(*static_cast<bool*>(f.addr)); break;
          case FieldKind::kInt32: out->set_i(*static_cast<int32_t*>(f.addr)); break;
          case FieldKind::kInt64: out->set_i(*static_cast<int64_t*>(f.addr)); break;
          case FieldKind::kDouble: out->set_f(*static_cast<double*>(f.addr)); break;
          case FieldKind::kString: out->set_s(*static_cast<std::string*>(f.addr)); break;
          case FieldKind::kDType: out->set_dtype(static_cast<DataType*>(f.addr)->ToString()); break;
          case FieldKind::kRef: out->set_ref(Ref(*static_cast<ObjectRef*>(f.addr))); break;
          case FieldKind::kSpan: {
            const Span& sp = *static_cast<Span*>(f.addr);
            kiln::v1::IRSpan* ps = out->mutable_span();
            if (sp.defined()) {
              ps->set_source(Source(sp));
              ps->set_line(sp.line);
              ps->set_column(sp.column);
              ps->set_end_line(sp.end_line);
              ps->set_end_column(sp.end_column);
            }
            break;
          }
        }
      }
    }
    index_[o] = graph_.nodes_size() - 1;
  }

  kiln::v1::IRGraph graph_;
  std::unordered_map<const Object*, int64_t> index_;
  std::unordered_map<std::string, int32_t> sources_;
};

// ---------------------------------------------------------------- reader

bool AcceptsNull(const FieldInfo& f) {
  if (f.flags & kFieldOptional) return true;
  // Array and Map fields read a null as empty.
  static const ObjectPtr<ArrayNode>* const kEmptyArray = new ObjectPtr<ArrayNode>(make_object<ArrayNode>());
  static const ObjectPtr<MapNode>* const kEmptyMap = new ObjectPtr<MapNode>(make_object<MapNode>());
  return f.accepts(kEmptyArray->get()) || f.accepts(kEmptyMap->get());
}

class Reader {
 public:
  explicit Reader(const kiln::v1::IRGraph& g) : g_(g) {}

  absl::StatusOr<ObjectRef> Run() {
    if (g_.format_version() != kIRFormatVersion) {
      return Error(absl::StrCat("unsupported IR format version ", g_.format_version(), " (this kiln reads ",
                                kIRFormatVersion, ")"));
    }
    for (const std::string& s : g_.sources()) {
      sources_.push_back(std::make_shared<const std::string>(s));
    }
    size_t n = g_.nodes_size();
    nodes_.reserve(n);
    depth_.reserve(n);
    size_.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      absl::Status st = ReadNode(static_cast<int64_t>(i));
      if (!st.ok()) return st;
    }
    if (g_.root() < -1 || g_.root() >= static_cast<int64_t>(n)) {
      return Error(absl::StrCat("root index ", g_.root(), " is out of range (", n, " nodes)"));
    }
    return g_.root() < 0 ? ObjectRef() : nodes_[g_.root()];
  }

 private:
  static absl::Status Error(const std::string& msg) {
    return absl::InvalidArgumentError(absl::StrCat("malformed serialized IR: ", msg));
  }
  absl::Status NodeError(int64_t i, const std::string& msg) const {
    return Error(absl::StrCat("node #", i, " (", g_.nodes(i).type(), "): ", msg));
  }

  // Resolves a reference from node i; records depth and expanded size.
  absl::StatusOr<ObjectRef> Resolve(int64_t i, int64_t ref, int* depth, int64_t* size) {
    if (ref == -1) return ObjectRef();
    if (ref < 0 || ref >= i) {
      return NodeError(i, absl::StrCat("reference ", ref, " does not point to an earlier node"));
    }
    *depth = std::max(*depth, depth_[ref] + 1);
    *size = std::min(kMaxExpandedSize + 1, *size + size_[ref]);
    return nodes_[ref];
  }

  absl::Status ReadNode(int64_t i) {
    const kiln::v1::IRNode& pn = g_.nodes(i);
    const TypeRegistry::Entry* entry = TypeRegistry::Global().Find(pn.type());
    if (entry == nullptr) return NodeError(i, "unknown node type");
    ObjectPtr<Object> obj = entry->create();
    int depth = 1;
    int64_t size = 1;
    if (auto* a = dynamic_cast<ArrayNode*>(obj.get())) {
      if (pn.fields_size() || pn.keys_size() || pn.values_size()) return NodeError(i, "an Array has only items");
      for (int64_t r : pn.items()) {
        absl::StatusOr<ObjectRef> x = Resolve(i, r, &depth, &size);
        if (!x.ok()) return x.status();
        a->data.push_back(*x);
      }
    } else if (auto* m = dynamic_cast<MapNode*>(obj.get())) {
      if (pn.keys_size() != pn.values_size()) return NodeError(i, "a Map needs as many keys as values");
      if (pn.fields_size() || pn.items_size()) return NodeError(i, "a Map has only keys and values");
      for (int k = 0; k < pn.keys_size(); ++k) {
        absl::StatusOr<ObjectRef> key = Resolve(i, pn.keys(k), &depth, &size);
        if (!key.ok()) return key.status();
        if (!key->defined()) return NodeError(i, "a Map key is null");
        absl::StatusOr<ObjectRef> value = Resolve(i, pn.values(k), &depth, &size);
        if (!value.ok()) return value.status();
        m->data.emplace_back(*key, *value);
      }
    } else if (auto* s = dynamic_cast<StringNode*>(obj.get())) {
      s->value = pn.str();
    } else {
      absl::Status st = ReadFields(i, pn, obj.get(), &depth, &size);
      if (!st.ok()) return st;
    }
    if (depth > kMaxDepth) return NodeError(i, absl::StrCat("nesting deeper than ", kMaxDepth));
    if (size > kMaxExpandedSize) {
      return NodeError(i, absl::StrCat("expands to more than ", kMaxExpandedSize, " nodes (a DAG bomb?)"));
    }
    // A binding node (Var, Buffer) is walked once; its uses cost one step each.
    nodes_.emplace_back(std::move(obj));
    depth_.push_back(depth);
    size_.push_back(entry->is_binding ? 1 : size);
    return absl::OkStatus();
  }

  absl::Status ReadFields(int64_t i, const kiln::v1::IRNode& pn, Object* obj, int* depth, int64_t* size) {
    if (pn.items_size() || pn.keys_size() || pn.values_size() || !pn.str().empty()) {
      return NodeError(i, "only containers have items, keys, values or str");
    }
    std::vector<FieldInfo> fields = ListFields(obj);
    std::vector<bool> seen(fields.size(), false);
    for (const kiln::v1::IRField& pf : pn.fields()) {
      auto it = std::find_if(fields.begin(), fields.end(), [&](const FieldInfo& f) { return pf.name() == f.name; });
      if (it == fields.end()) return NodeError(i, absl::StrCat("unknown field \"", pf.name(), "\""));
      size_t k = it - fields.begin();
      if (seen[k]) return NodeError(i, absl::StrCat("field \"", pf.name(), "\" given twice"));
      seen[k] = true;
      absl::Status st = ReadField(i, pf, *it, depth, size);
      if (!st.ok()) return st;
    }
    for (size_t k = 0; k < fields.size(); ++k) {
      if (!seen[k]) return NodeError(i, absl::StrCat("missing field \"", fields[k].name, "\""));
    }
    return absl::OkStatus();
  }

  absl::Status ReadField(int64_t i, const kiln::v1::IRField& pf, const FieldInfo& f, int* depth, int64_t* size) {
    auto wrong = [&](const char* want) {
      return NodeError(i, absl::StrCat("field \"", f.name, "\" must be ", want));
    };
    using V = kiln::v1::IRField;
    switch (f.kind) {
      case FieldKind::kBool:
        if (pf.value_case() != V::kB) return wrong("a bool");
        *static_cast<bool*>(f.addr) = pf.b();
        return absl::OkStatus();
      case FieldKind::kInt32: {
        if (pf.value_case() != V::kI) return wrong("an int");
        int64_t v = pf.i();
        int64_t lo = f.enum_max >= 0 ? 0 : std::numeric_limits<int32_t>::min();
        int64_t hi = f.enum_max >= 0 ? f.enum_max : std::numeric_limits<int32_t>::max();
        if (v < lo || v > hi) return NodeError(i, absl::StrCat("field \"", f.name, "\" = ", v, " is out of range"));
        *static_cast<int32_t*>(f.addr) = static_cast<int32_t>(v);
        return absl::OkStatus();
      }
      case FieldKind::kInt64:
        if (pf.value_case() != V::kI) return wrong("an int");
        *static_cast<int64_t*>(f.addr) = pf.i();
        return absl::OkStatus();
      case FieldKind::kDouble:
        if (pf.value_case() != V::kF) return wrong("a float");
        *static_cast<double*>(f.addr) = pf.f();
        return absl::OkStatus();
      case FieldKind::kString:
        if (pf.value_case() != V::kS) return wrong("a string");
        *static_cast<std::string*>(f.addr) = pf.s();
        return absl::OkStatus();
      case FieldKind::kDType: {
        if (pf.value_case() != V::kDtype) return wrong("a dtype");
        absl::StatusOr<DataType> t = DataType::Parse(pf.dtype());
        if (!t.ok()) return NodeError(i, absl::StrCat("field \"", f.name, "\": ", t.status().message()));
        *static_cast<DataType*>(f.addr) = *t;
        return absl::OkStatus();
      }
      case FieldKind::kSpan: {
        if (pf.value_case() != V::kSpan) return wrong("a span");
        const kiln::v1::IRSpan& ps = pf.span();
        Span& sp = *static_cast<Span*>(f.addr);
        if (ps.line() > 0) {
          if (ps.source() < 0 || ps.source() >= static_cast<int32_t>(sources_.size())) {
            return NodeError(i, "span source index out of range");
          }
          sp.source = sources_[ps.source()];
          sp.line = ps.line();
          sp.column = ps.column();
          sp.end_line = ps.end_line();
          sp.end_column = ps.end_column();
        }
        return absl::OkStatus();
      }
      case FieldKind::kRef: {
        if (pf.value_case() != V::kRef) return wrong("a reference");
        absl::StatusOr<ObjectRef> r = Resolve(i, pf.ref(), depth, size);
        if (!r.ok()) return r.status();
        if (!r->defined()) {
          if (!AcceptsNull(f)) return NodeError(i, absl::StrCat("field \"", f.name, "\" must not be null"));
        } else if (!f.accepts(r->get())) {
          return NodeError(i, absl::StrCat("field \"", f.name, "\" cannot hold a ", (*r)->type_key()));
        }
        *static_cast<ObjectRef*>(f.addr) = *r;
        return absl::OkStatus();
      }
    }
    return absl::OkStatus();
  }

  const kiln::v1::IRGraph& g_;
  std::vector<ObjectRef> nodes_;
  std::vector<int> depth_;
  std::vector<int64_t> size_;
  std::vector<std::shared_ptr<const std::string>> sources_;
};

}  // namespace

bool LooksLikeSerializedIR(absl::string_view bytes) {
  return bytes.size() >= 7 && std::memcmp(bytes.data(), kMagic, 7) == 0;
}

absl::StatusOr<std::string> Serialize(const ObjectRef& node) {
  absl::StatusOr<kiln::v1::IRGraph> g = Writer().Run(node);
  if (!g.ok()) return g.status();
  std::string out(kMagic, sizeof(kMagic));
  // Deterministic: the same IR always gives the same bytes (cache keys hash them).
  std::string body;
  {
    google::protobuf::io::StringOutputStream stream(&body);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!g->SerializeToCodedStream(&coded)) return absl::InternalError("IR serialization failed");
  }
  return out + body;
}

absl::StatusOr<ObjectRef> Deserialize(absl::string_view bytes) {
  if (!LooksLikeSerializedIR(bytes)) {
    return absl::InvalidArgumentError("not a serialized kiln IR (bad magic)");
  }
  if (bytes.size() < sizeof(kMagic) || static_cast<uint8_t>(bytes[7]) != kIRFormatVersion) {
    return absl::InvalidArgumentError(absl::StrCat("unsupported IR format version ",
                                                   bytes.size() < 8 ? 0 : static_cast<int>(static_cast<uint8_t>(bytes[7]))));
  }
  bytes.remove_prefix(sizeof(kMagic));
  kiln::v1::IRGraph g;
  bool parsed = false;
  if (bytes.size() <= static_cast<size_t>(std::numeric_limits<int>::max())) {
    // Protobuf logs some defects itself (invalid UTF-8 in a string field) to stderr; the error
    // below reports them in kiln's words instead.
    google::protobuf::LogSilencer quiet;
    parsed = g.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
  }
  if (!parsed) return absl::InvalidArgumentError("malformed serialized IR: truncated or corrupt message");
  return Reader(g).Run();
}

absl::StatusOr<std::string> SerializeToJson(const ObjectRef& node) {
  absl::StatusOr<kiln::v1::IRGraph> g = Writer().Run(node);
  if (!g.ok()) return g.status();
  std::string out;
  google::protobuf::util::JsonPrintOptions opts;
  opts.add_whitespace = true;
  opts.preserve_proto_field_names = true;
  auto st = google::protobuf::util::MessageToJsonString(*g, &out, opts);
  if (!st.ok()) return absl::InternalError(absl::StrCat("JSON conversion failed: ", st.ToString()));
  return out;
}

absl::StatusOr<ObjectRef> DeserializeFromJson(absl::string_view json) {
  kiln::v1::IRGraph g;
  auto st = google::protobuf::util::JsonStringToMessage(google::protobuf::StringPiece(json.data(), json.size()), &g);
  if (!st.ok()) return absl::InvalidArgumentError(absl::StrCat("malformed IR JSON: ", st.ToString()));
  return Reader(g).Run();
}

}  // namespace kiln::ir
