# SPDX-License-Identifier: MIT
# tests/gpu/jax_matmul.py: a jitted JAX matmul on the GPU.
import jax
import jax.numpy as jnp


@jax.jit
def f(a, b):
    return (a @ b).sum()


a = jnp.arange(256 * 256, dtype=jnp.float32).reshape(256, 256) % 7
b = jnp.arange(256 * 256, dtype=jnp.float32).reshape(256, 256) % 5
print("jax device %s, checksum %.1f" % (jax.devices()[0].platform, float(f(a, b))))
