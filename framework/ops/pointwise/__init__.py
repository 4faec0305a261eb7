"""Pointwise ops: arithmetic, unary maths, comparisons, bitwise, clamping, rounding."""
from .arithmetic import (Add, add, Div, div, divide, Mul, mul, multiply, Neg, neg, negative, pow, PowScalar, PowTensor,
                         Reciprocal, reciprocal, RPow, Rsub, rsub, Sub, sub, subtract, true_divide)
from .arithmetic_inplace import (AddcdivInplace, AddcmulInplace, AddInplace, DivInplace, LerpInplace, MulInplace,
                                 NegInplace, PowScalarInplace, SubInplace)
from .floordiv import (floor_divide, floor_divide_, FloorDivide, FloorDivideInplace, Fmod, fmod, fmod_, FmodInplace,
                       FmodScalar, FmodScalarInplace, Remainder, remainder, remainder_, RemainderInplace,
                       RemainderScalar, RemainderScalarInplace, RoundedQuotient, RRemainder)
from .unary import (Abs, abs, absolute, absolute_, Angle, angle, Cos, cos, Exp, exp, leaky_relu, LeakyRelu, Log, log,
                    nan_to_num, NanToNum, positive, Relu, relu, Rsqrt, rsqrt, Sgn, sgn, SgnOfAbs, Sigmoid, sigmoid,
                    Sign, sign, Sin, sin, Sqrt, sqrt, Tanh, tanh)
from .unary_inplace import (abs_, AbsInplace, cos_, CosInplace, detach_, exp_, ExpInplace, fill_, LeakyReluInplace,
                            log_, LogInplace, nan_to_num_, NanToNumInplace, neg_, negative_, ReciprocalInplace, relu_,
                            ReluInplace, RsqrtInplace, sigmoid_, SigmoidInplace, SignInplace, sin_, SinInplace, sqrt_,
                            SqrtInplace, tanh_, TanhInplace, zero_)
from .clamping import (Clamp, clamp, clamp_, clamp_max, clamp_max_, clamp_min, clamp_min_, ClampInplace, ClampMax,
                       ClampMaxInplace, ClampMaxTensor, ClampMaxTensorInplace, ClampMin, ClampMinInplace,
                       ClampMinTensor, ClampMinTensorInplace, ClampTensor, ClampTensorInplace, clip, clip_)
from .rounding import (Ceil, ceil, ceil_, CeilInplace, fix, fix_, Floor, floor, floor_, FloorInplace, Frac, frac, frac_,
                       FracInplace, Round, round, round_, RoundDecimals, RoundDecimalsInplace, RoundInplace, Trunc,
                       trunc, trunc_, TruncInplace)
from .trigonometric import (Acos, acos, acos_, Acosh, acosh, acosh_, AcoshInplace, AcosInplace, arccos, arccosh,
                            arccosh_, arcsin, arcsinh, arcsinh_, arctan, arctan2, arctanh, arctanh_, Asin, asin, asin_,
                            Asinh, asinh, asinh_, AsinhInplace, AsinInplace, Atan, atan, Atan2, atan2, atan_, Atanh,
                            atanh, atanh_, AtanhInplace, AtanInplace, Cosh, cosh, cosh_, CoshInplace, Deg2Rad, deg2rad,
                            deg2rad_, Deg2RadInplace, Rad2Deg, rad2deg, rad2deg_, Rad2DegInplace, Sinh, sinh, sinh_,
                            SinhInplace, Tan, tan, tan_, TanInplace)
from .exp_log import (Exp2, exp2, exp2_, Exp2Inplace, Expm1, expm1, expm1_, Expm1Inplace, Log10, log10, log10_,
                      Log10Inplace, Log1p, log1p, log1p_, Log1pInplace, Log2, log2, log2_, Log2Inplace, Logaddexp,
                      logaddexp, Logaddexp2, logaddexp2, Logit, logit, logit_, LogitInplace, square, square_)
from .special import (Erf, erf, erf_, Erfc, erfc, erfc_, ErfcInplace, ErfInplace, Erfinv, erfinv, erfinv_,
                      ErfinvInplace, I0, i0, i0_, I0Inplace, Sinc, sinc, sinc_, SincInplace, SpecialEntr, SpecialI0e,
                      SpecialI1, SpecialI1e, SpecialLogNdtr, SpecialNdtri, SpecialXlog1py, Xlogy, xlogy, xlogy_,
                      XlogyInplace, XlogyScalarOther, XlogyScalarOtherInplace, XlogyScalarSelf)
from .gamma import (Digamma, digamma, digamma_, DigammaInplace, Igamma, Igammac, Lgamma, lgamma, lgamma_, LgammaInplace,
                    Mvlgamma, mvlgamma, Polygamma, polygamma, polygamma_, PolygammaInplace, SpecialZeta)
from .binary import (Copysign, copysign, copysign_, CopysignInplace, CopysignScalar, CopysignScalarInplace, float_power,
                     float_power_, Fmax, fmax, Fmin, fmin, Frexp, frexp, Heaviside, heaviside, Hypot, hypot, hypot_,
                     HypotInplace, Ldexp, ldexp, ldexp_, LdexpInplace, Maximum, maximum, Minimum, minimum, Nextafter,
                     nextafter, nextafter_, NextafterInplace)
from .bitwise import (bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor, gcd,
                      invert_operator, lcm)
from .comparison import (allclose, CompareInplace, eq, eq_, equal, ge, ge_, greater, greater_equal, gt, gt_, is_tensor,
                         isclose, isfinite, isinf, isnan, isneginf, isposinf, isreal, le, le_, less, less_equal,
                         logical_and, logical_inplace, logical_not, logical_or, logical_xor, lt, lt_, ne, ne_,
                         not_equal, numel, signbit)
from .ternary import Addcdiv, addcdiv, Addcmul, addcmul, Lerp, lerp, LerpTensor
from .conditional import (masked_fill, masked_fill_, MaskedFill, MaskedFillInplace, MaskedFillTensor,
                          MaskedFillTensorInplace, Where, where, where_op)
# in-place twins of binary ops (atan2_, heaviside_, igamma_, igammac_)
from .trigonometric import arctan2_, atan2_, Atan2Inplace
from .binary import heaviside_, HeavisideInplace
from .gamma import igamma_, IgammaInplace, igammac_, IgammacInplace

__all__ = ['Add', 'add', 'Div', 'div', 'divide', 'Mul', 'mul', 'multiply', 'Neg', 'neg', 'negative', 'pow',
           'PowScalar', 'PowTensor', 'Reciprocal', 'reciprocal', 'RPow', 'Rsub', 'rsub', 'Sub', 'sub', 'subtract',
           'true_divide', 'AddcdivInplace', 'AddcmulInplace', 'AddInplace', 'DivInplace', 'LerpInplace', 'MulInplace',
           'NegInplace', 'PowScalarInplace', 'SubInplace', 'floor_divide', 'floor_divide_', 'FloorDivide',
           'FloorDivideInplace', 'Fmod', 'fmod', 'fmod_', 'FmodInplace', 'FmodScalar', 'FmodScalarInplace',
           'Remainder', 'remainder', 'remainder_', 'RemainderInplace', 'RemainderScalar', 'RemainderScalarInplace',
           'RoundedQuotient', 'RRemainder', 'Abs', 'abs', 'absolute', 'absolute_', 'Angle', 'angle', 'Cos', 'cos',
           'Exp', 'exp', 'leaky_relu', 'LeakyRelu', 'Log', 'log', 'nan_to_num', 'NanToNum', 'positive', 'Relu',
           'relu', 'Rsqrt', 'rsqrt', 'Sgn', 'sgn', 'SgnOfAbs', 'Sigmoid', 'sigmoid', 'Sign', 'sign', 'Sin', 'sin',
           'Sqrt', 'sqrt', 'Tanh', 'tanh', 'abs_', 'AbsInplace', 'cos_', 'CosInplace', 'detach_', 'exp_',
           'ExpInplace', 'fill_', 'LeakyReluInplace', 'log_', 'LogInplace', 'nan_to_num_', 'NanToNumInplace', 'neg_',
           'negative_', 'ReciprocalInplace', 'relu_', 'ReluInplace', 'RsqrtInplace', 'sigmoid_', 'SigmoidInplace',
           'SignInplace', 'sin_', 'SinInplace', 'sqrt_', 'SqrtInplace', 'tanh_', 'TanhInplace', 'zero_', 'Clamp',
           'clamp', 'clamp_', 'clamp_max', 'clamp_max_', 'clamp_min', 'clamp_min_', 'ClampInplace', 'ClampMax',
           'ClampMaxInplace', 'ClampMaxTensor', 'ClampMaxTensorInplace', 'ClampMin', 'ClampMinInplace',
           'ClampMinTensor', 'ClampMinTensorInplace', 'ClampTensor', 'ClampTensorInplace', 'clip', 'clip_', 'Ceil',
           'ceil', 'ceil_', 'CeilInplace', 'fix', 'fix_', 'Floor', 'floor', 'floor_', 'FloorInplace', 'Frac', 'frac',
           'frac_', 'FracInplace', 'Round', 'round', 'round_', 'RoundDecimals', 'RoundDecimalsInplace',
           'RoundInplace', 'Trunc', 'trunc', 'trunc_', 'TruncInplace', 'Acos', 'acos', 'acos_', 'Acosh', 'acosh',
           'acosh_', 'AcoshInplace', 'AcosInplace', 'arccos', 'arccosh', 'arccosh_', 'arcsin', 'arcsinh', 'arcsinh_',
           'arctan', 'arctan2', 'arctanh', 'arctanh_', 'Asin', 'asin', 'asin_', 'Asinh', 'asinh', 'asinh_',
           'AsinhInplace', 'AsinInplace', 'Atan', 'atan', 'Atan2', 'atan2', 'atan_', 'Atanh', 'atanh', 'atanh_',
           'AtanhInplace', 'AtanInplace', 'Cosh', 'cosh', 'cosh_', 'CoshInplace', 'Deg2Rad', 'deg2rad', 'deg2rad_',
           'Deg2RadInplace', 'Rad2Deg', 'rad2deg', 'rad2deg_', 'Rad2DegInplace', 'Sinh', 'sinh', 'sinh_',
           'SinhInplace', 'Tan', 'tan', 'tan_', 'TanInplace', 'Exp2', 'exp2', 'exp2_', 'Exp2Inplace', 'Expm1',
           'expm1', 'expm1_', 'Expm1Inplace', 'Log10', 'log10', 'log10_', 'Log10Inplace', 'Log1p', 'log1p', 'log1p_',
           'Log1pInplace', 'Log2', 'log2', 'log2_', 'Log2Inplace', 'Logaddexp', 'logaddexp', 'Logaddexp2',
           'logaddexp2', 'Logit', 'logit', 'logit_', 'LogitInplace', 'square', 'square_', 'Erf', 'erf', 'erf_',
           'Erfc', 'erfc', 'erfc_', 'ErfcInplace', 'ErfInplace', 'Erfinv', 'erfinv', 'erfinv_', 'ErfinvInplace', 'I0',
           'i0', 'i0_', 'I0Inplace', 'Sinc', 'sinc', 'sinc_', 'SincInplace', 'SpecialEntr', 'SpecialI0e', 'SpecialI1',
           'SpecialI1e', 'SpecialLogNdtr', 'SpecialNdtri', 'SpecialXlog1py', 'Xlogy', 'xlogy', 'xlogy_',
           'XlogyInplace', 'XlogyScalarOther', 'XlogyScalarOtherInplace', 'XlogyScalarSelf', 'Digamma', 'digamma',
           'digamma_', 'DigammaInplace', 'Igamma', 'Igammac', 'Lgamma', 'lgamma', 'lgamma_', 'LgammaInplace',
           'Mvlgamma', 'mvlgamma', 'Polygamma', 'polygamma', 'polygamma_', 'PolygammaInplace', 'SpecialZeta',
           'Copysign', 'copysign', 'copysign_', 'CopysignInplace', 'CopysignScalar', 'CopysignScalarInplace',
           'float_power', 'float_power_', 'Fmax', 'fmax', 'Fmin', 'fmin', 'Frexp', 'frexp', 'Heaviside', 'heaviside',
           'Hypot', 'hypot', 'hypot_', 'HypotInplace', 'Nextafter', 'nextafter', 'nextafter_',
           'NextafterInplace', 'Ldexp', 'ldexp', 'ldexp_', 'LdexpInplace', 'Maximum',
           'maximum', 'Minimum', 'minimum', 'bitwise_and', 'bitwise_left_shift', 'bitwise_not', 'bitwise_or',
           'bitwise_right_shift', 'bitwise_xor', 'gcd', 'invert_operator', 'lcm', 'allclose', 'CompareInplace', 'eq',
           'eq_', 'equal', 'ge', 'ge_', 'greater', 'greater_equal', 'gt', 'gt_', 'is_tensor', 'isclose', 'isfinite',
           'isinf', 'isnan', 'isneginf', 'isposinf', 'isreal', 'le', 'le_', 'less', 'less_equal', 'logical_and',
           'logical_inplace', 'logical_not', 'logical_or', 'logical_xor', 'lt', 'lt_', 'ne', 'ne_', 'not_equal',
           'numel', 'signbit', 'Addcdiv', 'addcdiv', 'Addcmul', 'addcmul', 'Lerp', 'lerp', 'LerpTensor',
           'masked_fill', 'masked_fill_', 'MaskedFill', 'MaskedFillInplace', 'MaskedFillTensor',
           'MaskedFillTensorInplace', 'Where', 'where', 'where_op',
           'arctan2_', 'atan2_', 'Atan2Inplace', 'heaviside_', 'HeavisideInplace', 'igamma_', 'IgammaInplace',
           'igammac_', 'IgammacInplace']
