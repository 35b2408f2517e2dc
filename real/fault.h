/*
 * fault.h - make a chosen CUDA (or NCCL) call fail, for tests of the real
 * backend's error paths.
 *
 * A wrapper that checks calls (CK in real_cuda.c) evaluates them through
 * HD_FAULT_CALL; when the call is to fail it is not made (a call that
 * releases something is made) and the wrapper sees an error as if the
 * driver had returned one.  An NCCL wrapper does the same:
 *     nccl_ok(HD_FAULT_CALL(#call, (call), ncclSystemError), #call)
 * Only programs compiled with -DHD_FAULT_INJECTION (the tests) have the
 * hook: in hdsim itself HD_FAULT_CALL is the call and HD_FAULT is 0, and no
 * environment variable is read.
 *
 * What fails is set by hd_fault_set() or, at the first checked call, by
 * $HDSIM_FAULT:
 *     N          the N-th checked call
 *     NAME       the first call of NAME (e.g. cudaMalloc, ncclAllReduce)
 *     NAME:N     the N-th call of NAME
 * A call's NAME is its text up to the first '('.
 */
#ifndef HD_FAULT_H
#define HD_FAULT_H

#ifdef HD_FAULT_INJECTION
/* 1 when the call written as `text` ("cudaMalloc(&p, n)") is to fail; counts it. */
int hd_fault_hit(const char *text);
/* 1 when the call releases something (its name has Free, Destroy, Unregister
 * or Abort in it): such a call is made and then reported failed, as a driver
 * reports an earlier sticky error from cudaFree, so nothing leaks. */
int hd_fault_releases(const char *text);
#define HD_FAULT(text) hd_fault_hit(text)
/* `call` evaluated as a checked call: its result, or err when it is to fail. */
#define HD_FAULT_CALL(text, call, err) \
	(hd_fault_hit(text) ? (hd_fault_releases(text) ? ((void)(call), (err)) : (err)) : (call))
#else
#define HD_FAULT(text)                 0
#define HD_FAULT_CALL(text, call, err) (call)
#endif

/* Set what fails (the forms above; "" for nothing; NULL: $HDSIM_FAULT, read
 * at the next checked call) and restart the counts.  -1 when spec is not one
 * of the forms. */
int hd_fault_set(const char *spec);
/* Checked calls counted since the last hd_fault_set. */
int hd_fault_calls(void);
/* The name of the n-th checked call (1-based) since the last hd_fault_set,
 * or NULL: the first 4096 calls are remembered. */
const char *hd_fault_call_name(int n);
/* The text of the call made to fail, or NULL when none has been. */
const char *hd_fault_injected(void);

#endif
