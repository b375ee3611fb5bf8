/* SPDX-License-Identifier: MIT */
/* tests/cases/static_prologues.S: runtime functions with entries that can and cannot be moved, for the entry patcher. */
	.text

/* endbr64, then a RIP-relative lea: endbr64 stays, the lea is relocated. */
	.globl __cudaRegisterFatBinary
	.type __cudaRegisterFatBinary, @function
__cudaRegisterFatBinary:
	endbr64
	leaq fat_handle(%rip), %rax
	movq %rdi, (%rax)
	ret
	.size __cudaRegisterFatBinary, .-__cudaRegisterFatBinary

/* A RIP-relative load first: patched, and must still read the right value. */
	.globl cudaMalloc
	.type cudaMalloc, @function
cudaMalloc:
	movq fake_pointer(%rip), %rax
	movq %rax, (%rdi)
	xorl %eax, %eax
	ret
	.size cudaMalloc, .-cudaMalloc

/* A call rel32 first: patched, the call retargeted from the trampoline. */
	.globl cudaGetDeviceCount
	.type cudaGetDeviceCount, @function
cudaGetDeviceCount:
	call four
	movl %eax, (%rdi)
	xorl %eax, %eax
	ret
	.size cudaGetDeviceCount, .-cudaGetDeviceCount

four:
	movl $4, %eax
	ret

/* A short conditional jump in the entry: refused. */
	.globl cudaFree
	.type cudaFree, @function
cudaFree:
	testq %rdi, %rdi
	jz 1f
	xorl %eax, %eax
	ret
1:	movl $1, %eax
	ret
	.size cudaFree, .-cudaFree

/* A loop back to byte 2, inside the bytes the jump would cover: refused. */
	.globl cudaGetDevice
	.type cudaGetDevice, @function
cudaGetDevice:
	xorl %eax, %eax
2:	addl $2, %eax
	cmpl $6, %eax
	jne 2b
	movl %eax, (%rdi)
	xorl %eax, %eax
	ret
	.size cudaGetDevice, .-cudaGetDevice

/* A byte no x86-64 decoder knows (0x06 is push %es, invalid in 64-bit mode), after the
   return: never run, but the body cannot be scanned past it: refused. */
	.globl cudaMemGetInfo
	.type cudaMemGetInfo, @function
cudaMemGetInfo:
	movq $100, (%rdi)
	movq $200, (%rsi)
	xorl %eax, %eax
	ret
	.byte 0x06
	.size cudaMemGetInfo, .-cudaMemGetInfo

/* Three bytes: shorter than the jump: refused. */
	.globl cudaDeviceSynchronize
	.type cudaDeviceSynchronize, @function
cudaDeviceSynchronize:
	xorl %eax, %eax
	ret
	.size cudaDeviceSynchronize, .-cudaDeviceSynchronize

	.data
	.p2align 3
fake_pointer:
	.quad 0x1234000
fat_handle:
	.quad 0
	.section .note.GNU-stack,"",@progbits
