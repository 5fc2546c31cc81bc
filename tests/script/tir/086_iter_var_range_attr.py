# from tvm.script import ir as I
# from tvm.script import tirx as T
# T.attr over an explicit T.iter_var(var, T.Range(begin, end), "ThreadIndex", tag) node; a launch
# whose extent has another dtype than its int32 thread variable keeps the env_thread form.

@I.ir_module
class Module:
    @T.prim_func
    def explicit_iter_var(A: T.Buffer((256,), "float32")):
        threadIdx_x = T.int32()
        T.attr(T.iter_var(threadIdx_x, T.Range(0, 256), "ThreadIndex", "threadIdx.x"), "thread_extent", 256)
        A[threadIdx_x] = A[threadIdx_x] + T.float32(1)

    @T.prim_func
    def int64_extent(A: T.Buffer((T.int64(64),), "float32")):
        bx = T.env_thread("blockIdx.x")
        T.launch_thread(bx, T.int64(2))
        A[T.Cast("int64", bx)] = T.float32(0)
