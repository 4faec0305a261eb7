"""torch.func: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap) and
functional_call, on framework's reverse-mode autograd.

grad-type transforms differentiate with framework.autograd.grad (create_graph=True where an enclosing transform
needs it, so they nest); jvp/jacfwd use the double-vjp trick; vmap is a per-example loop (the readable
reference). Inputs and outputs may be pytrees of tuples, lists and dicts, as torch's.
"""
from .forward import hessian, jacfwd, jvp, linearize
from .functional_call import functional_call, stack_module_state
from .reverse import grad, grad_and_value, jacrev, vjp
from .vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize", "vmap",
           "functional_call", "stack_module_state"]
