/* SPDX-License-Identifier: MIT */
/* loader/classify.h: which CUDA library an object is, by its file name or by what it exports. */
#ifndef CUA_CLASSIFY_H
#define CUA_CLASSIFY_H

struct link_map;

/* Which CUDA library a path names, by file name, or by the configured substitutes. */
int cua_objopen_classify(const char *path, const char *sub_driver, const char *sub_runtime);
/* Which CUDA library a loaded object is by what it exports, whatever its file name. */
int cua_objopen_classify_exports(const struct link_map *map);

#endif
