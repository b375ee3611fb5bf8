# SPDX-License-Identifier: MIT
# tests/gpu/jax_copies.py: JAX work that reaches several of the CUDA plugin's objects: a jitted matmul, the PRNG, a linear solve (cuSOLVER) and a sort.
import jax
import jax.numpy as jnp

a = jnp.arange(128 * 128, dtype=jnp.float32).reshape(128, 128) % 7
b = jnp.arange(128 * 128, dtype=jnp.float32).reshape(128, 128) % 5
print("device %s, matmul checksum %.1f" % (jax.devices()[0].platform, float(jax.jit(lambda x, y: (x @ y).sum())(a, b))))
key = jax.random.PRNGKey(0)
u = jax.random.uniform(key, (4096,))
print("prng mean in [0.45, 0.55]: %s" % (0.45 < float(u.mean()) < 0.55))
m = jnp.eye(64, dtype=jnp.float32) * 4.0 + jnp.ones((64, 64), dtype=jnp.float32)
x = jnp.linalg.solve(m, jnp.ones((64,), dtype=jnp.float32))
print("solve residual small: %s" % bool(jnp.abs(m @ x - 1.0).max() < 1e-4))
print("sort head %s" % jnp.sort(jnp.arange(100)[::-1] % 37)[:4].tolist())
