/* SPDX-License-Identifier: MIT */
/* bench/cupti_subscriber.c: the CUPTI callback API with empty callbacks on the driver and runtime domains, loaded through CUDA_INJECTION64_PATH. */
#include <cupti.h>
#include <stdint.h>

static CUpti_SubscriberHandle subscriber;
static volatile uint64_t seen;

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
				 CUpti_CallbackId cbid, const void *data)
{
	(void)userdata, (void)domain, (void)cbid, (void)data;
#ifdef WITH_TIMESTAMPS
	/* The "callback + timestamps" configuration: read the clock on entry and exit. */
	uint64_t t;
	cuptiGetTimestamp(&t);
	seen += t & 1;
#endif
}

/* CUDA calls this once, at initialisation, when CUDA_INJECTION64_PATH names this library. */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
	if (cuptiSubscribe(&subscriber, (CUpti_CallbackFunc)on_callback, NULL) != CUPTI_SUCCESS)
		return 0;
	cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
	cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
	return 1;
}
