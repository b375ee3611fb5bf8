/* SPDX-License-Identifier: MIT */
/* hooks/gpu/gpu_render.h: the summary's GPU tables, rendered from the GPU timing's totals. */
#ifndef CUA_GPU_RENDER_H
#define CUA_GPU_RENDER_H

struct cua_writer;

/* Renderers (hooks/gpu/gpu_render.c): the summary's GPU tables. */
void cua_gpu_write_text(struct cua_writer *w);
void cua_gpu_write_json(struct cua_writer *w);

#endif
