# from tvm.script import ir as I
# from tvm.script import tirx as T
# An env_thread bound by a plain T.attr keeps an IterVar without a domain (launch_thread would
# give it one), and TVM's parser accepts two nested launches of one thread tag.

@I.ir_module
class Module:
    @T.prim_func
    def attr_bound(A: T.Buffer((128,), "float32")):
        tx = T.env_thread("threadIdx.x")
        with T.attr(tx, "thread_extent", 128):
            A[tx] = A[tx] + T.float32(1)

    @T.prim_func
    def nested_same_tag(A: T.Buffer((16,), "float32")):
        t0 = T.env_thread("threadIdx.x")
        t1 = T.env_thread("threadIdx.x")
        T.launch_thread(t0, 4)
        T.launch_thread(t1, 4)
        A[t0 * 4 + t1] = T.float32(0)
