import numpy as np, framework as f, torch
from framework.distributions._gamma import standard_gamma, standard_gamma_grad_array
for a in [0.3, 1.0, 2.5, 7.0, 20.0, 300.]:
    x = np.array([0.01, 0.5, 0.9*a, a, 1.2*a, 3*a+1])
    al = np.full_like(x, a)
    ours = standard_gamma_grad_array(al, x)
    th = torch._standard_gamma_grad(torch.tensor(al), torch.tensor(x)).numpy()
    print(a, np.abs(ours/th-1).max())
f.manual_seed(0)
al = f.tensor([0.5, 2.0, 10.0], dtype=f.float64, requires_grad=True)
s = standard_gamma(al.expand(100000, 3))
print(s.mean(0), s.var(0))
s.sum().backward(); print(al.grad/100000)
