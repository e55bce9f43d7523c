"""Bit primitives for the kernels: population count and index of the lowest set bit.

Bitboards are signed int64 (no board uses bit 63), so numba never mixes signed and
unsigned integers.  Under NUMBA_DISABLE_JIT the pure-Python fallbacks are used.
"""
import numba
from numba import njit

if numba.config.DISABLE_JIT:

    # int(): shifts by table entries give numpy int64, which has no bit_length.
    def popcount(x):
        return bin(int(x) & 0xFFFFFFFFFFFFFFFF).count("1")

    def lsb_index(x):
        x = int(x)
        return ((x & -x).bit_length() - 1) if x else 64

else:
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def _ctpop(typingctx, x):
        def codegen(context, builder, signature, args):
            fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64)])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.ctpop.i64")
            return builder.call(fn, args)

        return types.int64(types.int64), codegen

    @intrinsic
    def _cttz(typingctx, x):
        def codegen(context, builder, signature, args):
            fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(1)])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.cttz.i64")
            return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])

        return types.int64(types.int64), codegen

    @njit(cache=True, nogil=True, inline="always")
    def popcount(x):
        return _ctpop(x)

    @njit(cache=True, nogil=True, inline="always")
    def lsb_index(x):
        return _cttz(x)
