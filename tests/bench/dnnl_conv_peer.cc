// The oneDNN peer of relax_bench.py's conv2d: one NCHW float32 convolution 1x64x56x56 with 64 3x3
// filters, stride 1, padding 1, the shape kiln's default schedule is measured on. oneDNN picks its
// own blocked layouts for the weights and activations (reordered once, outside the timing), as an
// inference runtime would; the timed call is the convolution primitive alone.
//
// Usage: dnnl_conv_peer NUMBER REPEAT   prints the median and the minimum seconds per call over
// REPEAT readings of NUMBER calls each, after one warm-up call.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <dnnl.hpp>

int main(int argc, char** argv) {
  int number = argc > 1 ? std::atoi(argv[1]) : 10;
  int repeat = argc > 2 ? std::atoi(argv[2]) : 5;
  if (number < 1 || repeat < 1) {
    std::fprintf(stderr, "usage: dnnl_conv_peer NUMBER REPEAT\n");
    return 2;
  }
  using dnnl::memory;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const memory::dims src_dims = {1, 64, 56, 56}, wei_dims = {64, 64, 3, 3}, dst_dims = {1, 64, 56, 56};
  const memory::dims strides = {1, 1}, padding = {1, 1};
  auto any = [](const memory::dims& d) { return memory::desc(d, memory::data_type::f32, memory::format_tag::any); };
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                       any(src_dims), any(wei_dims), any(dst_dims), strides, padding, padding);
  dnnl::convolution_forward::primitive_desc pd(desc, eng);

  std::vector<float> src(1 * 64 * 56 * 56), wei(64 * 64 * 3 * 3);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f - 0.5f;
  for (size_t i = 0; i < wei.size(); ++i) wei[i] = static_cast<float>((i * 104729) % 1000) / 1000.0f - 0.5f;
  memory user_src({src_dims, memory::data_type::f32, memory::format_tag::nchw}, eng, src.data());
  memory user_wei({wei_dims, memory::data_type::f32, memory::format_tag::oihw}, eng, wei.data());
  memory conv_src(pd.src_desc(), eng), conv_wei(pd.weights_desc(), eng), conv_dst(pd.dst_desc(), eng);
  dnnl::reorder(user_src, conv_src).execute(strm, user_src, conv_src);
  dnnl::reorder(user_wei, conv_wei).execute(strm, user_wei, conv_wei);
  strm.wait();

  dnnl::convolution_forward conv(pd);
  auto run = [&] {
    conv.execute(strm, {{DNNL_ARG_SRC, conv_src}, {DNNL_ARG_WEIGHTS, conv_wei}, {DNNL_ARG_DST, conv_dst}});
    strm.wait();
  };
  run();
  std::vector<double> per_call;
  for (int r = 0; r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < number; ++i) run();
    per_call.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / number);
  }
  std::sort(per_call.begin(), per_call.end());
  std::printf("%.9g %.9g\n", per_call[per_call.size() / 2], per_call.front());
  return 0;
}
