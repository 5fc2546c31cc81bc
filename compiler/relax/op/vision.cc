// Vision operators (R.vision.*), after TVM's relax.vision: roi_align, roi_pool,
// all_class_non_max_suppression, get_valid_counts, non_max_suppression and
// multibox_transform_loc, with the attributes and defaults of TVM's Python wrappers and the result
// types its inference gives (tuples for the NMS family).
#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

absl::StatusOr<TensorInfo> Input(const ir::relax::Call& call, size_t i, const std::string& op, const std::string& name,
                                 int want_ndim) {
  absl::StatusOr<TensorInfo> t = GetTensorInfo(ArgType(call, i), op, name);
  if (!t.ok()) return t.status();
  if (want_ndim >= 0 && t->ndim >= 0 && t->ndim != want_ndim) {
    return OpError(op, absl::StrCat(name, " must be ", want_ndim, "-D, got ndim ", t->ndim));
  }
  return t;
}

Type Tensor(std::vector<PrimExpr> shape, DataType dtype) { return MakeTensorType(std::move(shape), dtype); }

// roi_align / roi_pool: (num_roi, C, ph, pw) for NCHW, (num_roi, ph, pw, C) for NHWC.
InferFn RoiInfer(const std::string& op, bool align) {
  return [op, align](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<TensorInfo> data = Input(call, 0, op, "data", 4);
    if (!data.ok()) return data.status();
    absl::StatusOr<TensorInfo> rois = Input(call, 1, op, "rois", 2);
    if (!rois.ok()) return rois.status();
    std::string layout = StringAttr(call, "layout", "NCHW");
    if (layout != "NCHW" && (!align || layout != "NHWC")) {
      return OpError(op, absl::StrCat("does not support layout ", layout));
    }
    if (align) {
      std::string mode = StringAttr(call, "mode", "avg");
      if (mode != "avg" && mode != "max") return OpError(op, "mode must be avg or max, got " + mode);
    }
    std::vector<int64_t> pooled = IntArrayAttr(call, "pooled_size").value_or(std::vector<int64_t>{});
    if (pooled.size() != 2) return OpError(op, "pooled_size must have 2 values");
    if (rois->shape_known) {
      std::optional<int64_t> last = AsConst(rois->shape[1]);
      if (last && *last != 5) return OpError(op, absl::StrCat("rois must have shape (num_roi, 5), got last dim ", *last));
    }
    if (!data->shape_known || !rois->shape_known) return MakeTensorType(data->dtype, 4);
    PrimExpr ph = Dim(pooled[0]), pw = Dim(pooled[1]);
    if (layout == "NCHW") return Tensor({rois->shape[0], data->shape[1], ph, pw}, data->dtype);
    return Tensor({rois->shape[0], ph, pw, data->shape[3]}, data->dtype);
  };
}

absl::StatusOr<Type> InferAllClassNms(const ir::relax::Call& call) {
  const std::string op = "vision.all_class_non_max_suppression";
  absl::StatusOr<TensorInfo> boxes = Input(call, 0, op, "boxes", 3);
  if (!boxes.ok()) return boxes.status();
  absl::StatusOr<TensorInfo> scores = Input(call, 1, op, "scores", 3);
  if (!scores.ok()) return scores.status();
  if (!boxes->shape_known || !scores->shape_known) return OpError(op, "boxes and scores must have known shapes");
  PrimExpr batch = boxes->shape[0], classes = scores->shape[1], num_boxes = boxes->shape[1];
  std::string format = StringAttr(call, "output_format", "onnx");
  if (format == "onnx") {
    return Type(TupleType({Tensor({MulDim(MulDim(batch, classes), num_boxes), Dim(3)}, DataType::Int(64)),
                           Tensor({Dim(1)}, DataType::Int(64))}));
  }
  if (format != "tensorflow") return OpError(op, "output_format must be onnx or tensorflow, got " + format);
  PrimExpr per_batch = MulDim(classes, num_boxes);
  return Type(TupleType({Tensor({batch, per_batch, Dim(2)}, DataType::Int(64)),
                         Tensor({batch, per_batch}, DataType::Float(32)), Tensor({batch}, DataType::Int(64))}));
}

// Checks that the attribute indices point inside a box record of `elem_length` values.
absl::Status CheckIndex(const std::string& op, const std::string& name, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v >= hi) return OpError(op, absl::StrCat(name, " must be in [", lo, ", ", hi, "), got ", v));
  return absl::OkStatus();
}

absl::StatusOr<Type> InferGetValidCounts(const ir::relax::Call& call) {
  const std::string op = "vision.get_valid_counts";
  absl::StatusOr<TensorInfo> data = Input(call, 0, op, "data", 3);
  if (!data.ok()) return data.status();
  if (!data->shape_known) {
    return Type(TupleType({MakeTensorType(DataType::Int(32), 1), MakeTensorType(data->dtype, 3),
                           MakeTensorType(DataType::Int(32), 2)}));
  }
  if (std::optional<int64_t> elem = AsConst(data->shape[2])) {
    absl::Status st = CheckIndex(op, "score_index", IntAttr(call, "score_index").value_or(1), 0, *elem);
    if (st.ok()) st = CheckIndex(op, "id_index", IntAttr(call, "id_index").value_or(0), -1, *elem);
    if (!st.ok()) return st;
  }
  PrimExpr batch = data->shape[0], anchors = data->shape[1];
  return Type(TupleType({Tensor({batch}, DataType::Int(32)), Tensor(data->shape, data->dtype),
                         Tensor({batch, anchors}, DataType::Int(32))}));
}

absl::StatusOr<Type> InferNms(const ir::relax::Call& call) {
  const std::string op = "vision.non_max_suppression";
  absl::StatusOr<TensorInfo> data = Input(call, 0, op, "data", 3);
  if (!data.ok()) return data.status();
  absl::StatusOr<TensorInfo> valid = Input(call, 1, op, "valid_count", 1);
  if (!valid.ok()) return valid.status();
  absl::StatusOr<TensorInfo> indices = Input(call, 2, op, "indices", 2);
  if (!indices.ok()) return indices.status();
  for (const auto& [t, name] : {std::pair{&*valid, "valid_count"}, std::pair{&*indices, "indices"}}) {
    if (!t->dtype.is_void() && t->dtype != DataType::Int(32)) {
      return OpError(op, absl::StrCat(name, " must be int32, got ", t->dtype.ToString()));
    }
  }
  if (data->shape_known) {
    PrimExpr batch = data->shape[0], anchors = data->shape[1];
    if (valid->shape_known && ProveNotEqual(valid->shape[0], batch)) {
      return OpError(op, "valid_count must have shape [batch_size]");
    }
    if (indices->shape_known && (ProveNotEqual(indices->shape[0], batch) || ProveNotEqual(indices->shape[1], anchors))) {
      return OpError(op, "indices must have shape [batch_size, num_anchors]");
    }
    if (std::optional<int64_t> elem = AsConst(data->shape[2])) {
      absl::Status st = CheckIndex(op, "score_index", IntAttr(call, "score_index").value_or(1), 0, *elem);
      if (st.ok()) st = CheckIndex(op, "coord_start", IntAttr(call, "coord_start").value_or(2), 0, *elem - 3);
      if (st.ok()) st = CheckIndex(op, "id_index", IntAttr(call, "id_index").value_or(0), -1, *elem);
      if (!st.ok()) return st;
    }
  }
  if (!BoolAttr(call, "return_indices", true)) {
    return data->shape_known ? Tensor(data->shape, data->dtype) : MakeTensorType(data->dtype, 3);
  }
  bool soft = FloatAttr(call, "soft_nms_sigma").value_or(0.0) > 0.0;
  Array<Type> fields;
  if (!data->shape_known) {
    if (soft) fields.push_back(MakeTensorType(data->dtype, 3));
    fields.push_back(MakeTensorType(DataType::Int(32), 2));
    fields.push_back(MakeTensorType(DataType::Int(32), 2));
    return Type(TupleType(fields));
  }
  PrimExpr batch = data->shape[0], anchors = data->shape[1];
  if (soft) fields.push_back(Tensor(data->shape, data->dtype));
  fields.push_back(Tensor({batch, anchors}, DataType::Int(32)));
  fields.push_back(Tensor({batch, Dim(1)}, DataType::Int(32)));
  return Type(TupleType(fields));
}

absl::StatusOr<Type> InferMultiboxTransformLoc(const ir::relax::Call& call) {
  const std::string op = "vision.multibox_transform_loc";
  absl::StatusOr<TensorInfo> cls = Input(call, 0, op, "cls_pred", 3);
  if (!cls.ok()) return cls.status();
  absl::StatusOr<TensorInfo> loc = Input(call, 1, op, "loc_pred", 2);
  if (!loc.ok()) return loc.status();
  absl::StatusOr<TensorInfo> anchor = Input(call, 2, op, "anchor", 3);
  if (!anchor.ok()) return anchor.status();
  for (const TensorInfo* t : {&*loc, &*anchor}) {
    if (!cls->dtype.is_void() && !t->dtype.is_void() && t->dtype != cls->dtype) {
      return OpError(op, "cls_pred, loc_pred and anchor must have the same dtype");
    }
  }
  std::vector<double> variances;
  if (const auto* a = call->attrs.Get(String("variances")).as<ArrayNode>()) {
    for (const ObjectRef& x : a->data) {
      if (const auto* f = x.as<FloatImmNode>()) variances.push_back(f->value);
    }
  }
  if (variances.size() != 4) return OpError(op, "variances must have 4 values (x, y, w, h)");
  if (!cls->shape_known) {
    return Type(TupleType({MakeTensorType(cls->dtype, 3), MakeTensorType(cls->dtype, 3)}));
  }
  PrimExpr batch = cls->shape[0], classes = cls->shape[1], anchors = cls->shape[2];
  std::optional<int64_t> n = AsConst(anchors);
  if (loc->shape_known) {
    std::optional<int64_t> l1 = AsConst(loc->shape[1]);
    // Divided rather than 4 * N multiplied: N may be as large as int64 allows.
    if (l1 && n && (*l1 % 4 != 0 || *l1 / 4 != *n)) {
      return OpError(op, absl::StrCat("loc_pred.shape[1] must be 4*N = 4*", *n, ", got ", *l1));
    }
    if (ProveNotEqual(loc->shape[0], batch)) return OpError(op, "cls_pred and loc_pred must have the same batch size");
  }
  if (anchor->shape_known) {
    std::optional<int64_t> a0 = AsConst(anchor->shape[0]), a1 = AsConst(anchor->shape[1]), a2 = AsConst(anchor->shape[2]);
    if (a0 && *a0 != 1) return OpError(op, "anchor.shape[0] must be 1");
    if (a2 && *a2 != 4) return OpError(op, "anchor.shape[2] must be 4 (ltrb)");
    if (a1 && n && *a1 != *n) return OpError(op, "anchor.shape[1] must equal cls_pred.shape[2]");
  }
  return Type(TupleType({Tensor({batch, anchors, Dim(4)}, cls->dtype), Tensor({batch, classes, anchors}, cls->dtype)}));
}

// An int pooled_size means a square window, as TVM's wrappers expand it.
void SquarePooledSize(Map<String, ObjectRef>* attrs) {
  if (const auto* a = attrs->Get(String("pooled_size")).as<ArrayNode>(); a && a->data.size() == 1) {
    attrs->Set(String("pooled_size"), Array<ObjectRef>{a->data[0], a->data[0]});
  }
}

}  // namespace

void RegisterVisionOps(std::vector<OpSchema>* ops) {
  AddOp(ops, "vision.roi_align", {"data", "rois"},
        {RequiredIntArrayAttrSpec("pooled_size"), {"spatial_scale", AttrSpec::Kind::kFloat, ObjectRef()},
         IntAttrSpec("sample_ratio", -1), BoolAttrSpec("aligned", false), StringAttrSpec("layout", "NCHW"),
         StringAttrSpec("mode", "avg")},
        RoiInfer("vision.roi_align", true))
      .finalize_attrs = SquarePooledSize;
  AddOp(ops, "vision.roi_pool", {"data", "rois"},
        {RequiredIntArrayAttrSpec("pooled_size"), {"spatial_scale", AttrSpec::Kind::kFloat, ObjectRef()},
         StringAttrSpec("layout", "NCHW")},
        RoiInfer("vision.roi_pool", false))
      .finalize_attrs = SquarePooledSize;
  AddOp(ops, "vision.all_class_non_max_suppression",
        {"boxes", "scores", "max_output_boxes_per_class", "iou_threshold", "score_threshold"},
        {StringAttrSpec("output_format", "onnx")}, InferAllClassNms);
  AddOp(ops, "vision.get_valid_counts", {"data"},
        {FloatAttrSpec("score_threshold", 0.0), IntAttrSpec("id_index", 0), IntAttrSpec("score_index", 1)},
        InferGetValidCounts);
  AddOp(ops, "vision.non_max_suppression", {"data", "valid_count", "indices"},
        {IntAttrSpec("max_output_size", -1), FloatAttrSpec("iou_threshold", 0.5), BoolAttrSpec("force_suppress", false),
         IntAttrSpec("top_k", -1), IntAttrSpec("coord_start", 2), IntAttrSpec("score_index", 1),
         IntAttrSpec("id_index", 0), BoolAttrSpec("return_indices", true), BoolAttrSpec("invalid_to_bottom", false),
         FloatAttrSpec("soft_nms_sigma", 0.0), FloatAttrSpec("score_threshold", 0.0)},
        InferNms);
  AddOp(ops, "vision.multibox_transform_loc", {"cls_pred", "loc_pred", "anchor"},
        {BoolAttrSpec("clip", false), FloatAttrSpec("threshold", 0.0),
         FloatArrayAttrSpec("variances", {1.0, 1.0, 1.0, 1.0}), BoolAttrSpec("keep_background", true)},
        InferMultiboxTransformLoc);
}

}  // namespace kiln::relax
