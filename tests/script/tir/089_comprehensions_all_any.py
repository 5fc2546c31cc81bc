# from tvm.script import tirx as T
# List comprehensions (and list + list) are evaluated at parse time, as Python evaluates them;
# tvm.tirx.all / any fold their conditions into a left-nested and / or chain.

@T.prim_func
def comprehensions(A: T.Buffer((10,), "bool"), B: T.Buffer((10,), "int32")):
    l = T.meta_var([i * 2 for i in range(1, 10, 2) if i != 5])
    B[0] = l[2]
    regs = T.meta_var([A[j] for j in range(4)])
    T.evaluate(tvm.tirx.all(*regs))
    T.evaluate(T.any(*([A[k] for k in range(2, 4)] + [A[k] for k in (6, 8)])))
    pairs = T.meta_var([(p, q) for p in range(2) for q in range(2)])
    B[1] = pairs[3][0] + pairs[2][1]
    sums = T.meta_var([p + q for p, q in pairs])
    B[2] = sums[1]
