/* SPDX-License-Identifier: MIT */
/* tests/cases/tls_ie_lib.c: a library with 1 KiB of initial-exec TLS, which a dlopen places in the static TLS surplus (the same room LD_AUDIT modules take theirs from). */
__thread char tls_ie_room[1024] __attribute__((tls_model("initial-exec")));

char *tls_ie_get(void)
{
	return tls_ie_room;
}
