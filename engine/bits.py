"""Bit primitives for the kernels: population count, index of the lowest set bit, a
hint to bring an array's element into the caches ahead of its use, and an unsigned index.

Bitboards are signed int64 (Turkish's board of 64 squares uses bit 63: such a word is
negative), so numba never mixes signed and unsigned integers, but for :func:`ix`: an index
it reads a hot array at, made unsigned so that numba leaves out the code that counts a
negative index from the array's end (three instructions more between the index and the
load that waits on it).  Under NUMBA_DISABLE_JIT the pure-Python fallbacks are used.
"""
import numba
import numpy as np
from numba import njit

if numba.config.DISABLE_JIT:

    # int(): shifts by table entries give numpy int64, which has no bit_length.
    def popcount(x):
        return bin(int(x) & 0xFFFFFFFFFFFFFFFF).count("1")

    def lsb_index(x):
        x = int(x)
        return ((x & -x).bit_length() - 1) if x else 64

    def prefetch(a, i):
        pass

    def ix(i):
        return int(i)

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

    @intrinsic
    def _prefetch(typingctx, array, index):
        if not isinstance(array, types.Array):
            return None

        def codegen(context, builder, signature, args):
            aryty, idxty = signature.args
            ary = context.make_array(aryty)(context, builder, args[0])
            idx = context.cast(builder, args[1], idxty, types.intp)
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [idx])
            byte_ptr, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
            # a read (0), kept in every cache level (3), of data (1)
            builder.call(fn, [builder.bitcast(ptr, byte_ptr), i32(0), i32(3), i32(1)])
            return context.get_dummy_value()

        return types.void(array, index), codegen

    @njit(cache=True, nogil=True, inline="always")
    def prefetch(a, i):
        """Ask the processor to bring ``a[i]`` (``i`` in range) into its caches: a hint,
        no value changes and no fault."""
        _prefetch(a, i)

    @njit(cache=True, nogil=True, inline="always")
    def ix(i):
        """``i``, known not to be negative, as an unsigned array index (the module docstring).
        Add only another ``ix`` to it: with a signed operand numba's sum is signed or a float."""
        return np.uint64(i)
