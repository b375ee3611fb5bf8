/* SPDX-License-Identifier: MIT */
/* tests/cases/static_stubs.S: runtime functions as forwarding stubs (the form Implib.so and XLA's cudart stub give JAX's plugins): no size, an indirect jump through a table that a resolver fills by dlsym. */
	.text

/* STUB name, index: cmpq $0, slot; je resolve; jmp *slot, and no .size (st_size 0). */
	.macro STUB name, index
	.globl \name
	.hidden \name
	.type \name, @function
	.p2align 4
\name:
	.cfi_startproc
	cmpq $0, stub_table+8*\index(%rip)
	je 2f
1:
	jmp *stub_table+8*\index(%rip)
2:
	pushq $\index
	.cfi_adjust_cfa_offset 8
	call stub_save_regs_and_resolve
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	jmp 1b
	.cfi_endproc
	.endm

	STUB __cudaRegisterFatBinary, 0
	STUB cudaMalloc, 1
	STUB cudaFree, 2
	STUB cudaGetDevice, 3

/* Keeps the argument registers across the C resolver, which fills stub_table[index]. */
	.globl stub_save_regs_and_resolve
	.hidden stub_save_regs_and_resolve
	.type stub_save_regs_and_resolve, @function
stub_save_regs_and_resolve:
	.cfi_startproc
	pushq %rdi
	pushq %rsi
	pushq %rdx
	pushq %rcx
	pushq %r8
	pushq %r9
	pushq %rax
	.cfi_adjust_cfa_offset 56
	/* The index sits above the 7 saved registers and the return address. */
	movq 64(%rsp), %rdi
	/* The caller's call, the index, this call and 7 pushes: 16-byte aligned again. */
	call stub_resolve
	popq %rax
	popq %r9
	popq %r8
	popq %rcx
	popq %rdx
	popq %rsi
	popq %rdi
	.cfi_adjust_cfa_offset -56
	ret
	.cfi_endproc
	.size stub_save_regs_and_resolve, .-stub_save_regs_and_resolve

	.bss
	.globl stub_table
	.hidden stub_table
	.p2align 3
stub_table:
	.zero 8*4
	.section .note.GNU-stack,"",@progbits
