# from tvm.script import tirx as T
# Device intrinsics whose script form takes keywords or expands: T.cuda.ldg (scalar, and the vector
# form through dst pointers), T.cuda.func_call (source_code=, return_type=), the tcgen05 descriptor
# packers, T.cuda.mov_sreg, T.cuda.sm100_2sm_leader_smem_addr, T.print_buffer, T.nvshmem.*,
# T.tvm_kernel_replace_point, the ops only reachable through T.call_intrin and the fixed-dtype
# helpers (clock64, packed float2/bfloat162 arithmetic).

kernel_src = "\n__device__ int32_t twice(int32_t x) { return 2 * x; }\n"

@T.prim_func
def main(A: T.Buffer((8,), "float32"), N: T.Buffer((8,), "int32"), D: T.Buffer((2,), "uint64")):
    for tx in T.thread_binding(8, thread="threadIdx.x"):
        A[tx] = T.cuda.ldg(A.data, "float32")
        lo = T.alloc_local((1,), "int32")
        hi = T.alloc_local((1,), "int32")
        T.cuda.ldg(N.data, "int32", dst=(lo.ptr_to([0]), hi.ptr_to([0])), vec="v2")
        N[tx] = T.cuda.func_call("twice", lo[0], source_code=kernel_src, return_type="int32")
        T.cuda.func_call("twice", hi[0], source_code=kernel_src)
        N[1] = T.cuda.mov_sreg(32, "clusterid.x")
        D[0] = T.cuda.mov_sreg(64, "globaltimer")
        desc = T.local_scalar("uint64")
        T.cuda.tcgen05.encode_matrix_descriptor(T.address_of(desc), A.data, ldo=1, sdo=64, swizzle=3)
        idesc = T.local_scalar("uint32")
        T.cuda.tcgen05.encode_instr_descriptor(T.address_of(idesc), d_dtype="float32", a_dtype="float16", b_dtype="float16", M=128, N=256, K=16, trans_a=False, trans_b=True)
        T.cuda.tcgen05.encode_instr_descriptor_block_scaled(T.address_of(idesc), d_dtype="float32", a_dtype="float8_e4m3fn", b_dtype="float8_e4m3fn", sfa_dtype="float8_e8m0fnu", sfb_dtype="float8_e8m0fnu", sfa_tmem_addr=0, sfb_tmem_addr=4, M=128, N=128, K=32, trans_a=False, trans_b=False, n_cta_groups=2)
        N[2] = T.Cast("int32", T.cuda.sm100_2sm_leader_smem_addr(A.data))
        T.print_buffer(A.data, "float32", False, False, 1, (8,))
        T.nvshmem.quiet()
        T.nvshmem.fence()
        N[3] = T.nvshmem.my_pe() + T.nvshmem.n_pes()
        T.tvm_kernel_replace_point()
        N[4] = T.call_intrin("int32", "tirx.tvm_context_id")
        D[1] = T.cuda.clock64()
        N[5] = T.Cast("int32", T.cuda.hmax2(T.uint32(1), T.cuda.float22bfloat162_rn(A[0], A[1])))
        A[6] = T.cuda.float2_x(T.cuda.fadd2_rn(T.cuda.make_float2(A[0], A[1]), D[0]))
