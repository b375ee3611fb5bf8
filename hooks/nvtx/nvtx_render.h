/* SPDX-License-Identifier: MIT */
/* hooks/nvtx/nvtx_render.h: the summary's NVTX table, as text and as JSON. */
#ifndef CUA_NVTX_RENDER_H
#define CUA_NVTX_RENDER_H

struct cua_writer;
/* The summary's NVTX table: text and the JSON member "nvtx" (nothing when the injection
   library was never loaded). Not on the hot path. */
void cua_nvtx_write_text(struct cua_writer *w);
void cua_nvtx_write_json(struct cua_writer *w);

#endif
