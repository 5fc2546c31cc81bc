# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((1, 3, 112, 112), dtype="float32")) -> R.Tensor((1, 3, 224, 224), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((1, 3, 224, 224), dtype="float32") = R.image.resize2d(x, R.shape([224, 224]), roi=[T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0)], layout="NCHW", method="linear", coordinate_transformation_mode="half_pixel", rounding_method="round", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype="void")
        lv1: R.Tensor((1, 3, 224, 224), dtype="float32") = R.image.resize2d(x, (224, 224), method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="floor")
        R.output(lv)
    return lv
