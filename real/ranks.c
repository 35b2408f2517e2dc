/*
 * ranks.c - one process per rank on one node: the coordinator, the worker's
 * main and the watchdog (ranks.h).
 *
 * Processes.  The coordinator resolves /proc/self/exe and, for each rank,
 * makes a socket pair and forks; the child execs the binary at once as
 * `hdsim __rank-worker RANK NRANKS 3` with its end of the pair on fd 3 and
 * PR_SET_PDEATHSIG set, so no CUDA state crosses the fork and a coordinator
 * that dies takes its workers with it.
 *
 * Protocol (wire.h frames), per rank:
 *   down  SCEN     u32 warm-up, u32 repeats, the scenario's IR
 *   up    PHASE    what the rank is doing now (a string)
 *   up    GATHER   a contribution to an allgather (rank 0's NCCL unique id,
 *                  IPC handles, each repeat's start time, or nothing: a
 *                  barrier)
 *   down  ALL      once every rank has sent GATHER: u64 release time (ns,
 *                  CLOCK_MONOTONIC, shared by the node), then each rank's
 *                  contribution as (u32 length, bytes)
 *   up    TRACE    the rank's spans (a serialised trace); the rank is done
 *   up    ERROR    "rank R: CALL failed: ..."; the rank ends
 * Repeats start with a barrier; their spans count from the earliest rank's
 * start, on the clock every process of the node shares.
 *
 * Watchdog.  The coordinator polls every socket.  A socket closed before its
 * trace arrives (a rank died), an ERROR, no message from any rank for the
 * timeout (HDSIM_RANK_TIMEOUT seconds, default 60), or an interrupt ends
 * all ranks: SIGTERM (a worker aborts its communicator), then SIGKILL two
 * seconds later, then every child is reaped.  The sink sees spans only once
 * every rank has finished.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "real/rank_exec.h"
#include "real/ranks.h"
#include "real/rt.h"
#include "real/wire.h"

extern char **environ;

enum {
	M_SCEN = 1,
	M_PHASE,
	M_GATHER,
	M_ALL,
	M_TRACE,
	M_ERROR
};

#define WORKER_FD     3
#define WORKER_SHM_FD 4 /* the shared page of the scenario's barriers */

/*
 * The scenario's `barrier` op, between processes of one node: a counter and
 * a generation in a page every rank maps (memfd passed across exec).  The
 * last rank to arrive resets the counter and bumps the generation; the
 * others spin on it.  A round trip through the coordinator's sockets costs
 * tens to hundreds of microseconds; MPI_Barrier on one node costs a few.
 */
struct shm_barrier {
	unsigned count;
	unsigned gen;
	int64_t release_ns; /* when the last rank arrived, written before gen */
};
/* what a rank waiting in it tells the coordinator, whose watchdog then
 * names the ranks the others wait for */
#define BARRIER_PHASE "at the barrier"
#define KILL_GRACE_NS 2000000000LL

/* ---- fits ----------------------------------------------------------------------- */

int
hd_ranks_fits(const struct hd_scenario *sc, char *why, size_t n)
{
	struct hd_err e = { 0 };
	int gpus, world = hd_ranks_mpi_size();

	if (sc->nranks <= 1)
		return 1;
	if (world > 0) {
		if (sc->nranks <= world)
			return 1;
		snprintf(why, n, "needs %d ranks; mpirun started %d", sc->nranks, world);
		return 0;
	}
	gpus = hd_rt_device_count(&e);
	if (gpus < 0) {
		snprintf(why, n, "needs %d GPUs; %s", sc->nranks, e.msg);
		return 0;
	}
	if (gpus < sc->nranks) {
		snprintf(why, n, "needs %d GPUs; this machine has %d", sc->nranks, gpus);
		return 0;
	}
	return 1;
}

/* ---- the coordinator -------------------------------------------------------------- */

struct worker {
	pid_t pid;
	int fd; /* -1 once closed */
	int status, reaped;
	int gathered; /* has sent GATHER for the current round */
	unsigned char *blob;
	size_t nblob;
	unsigned char *trace; /* TRACE payload once done */
	size_t ntrace;
	char phase[128];
};

struct coord {
	const struct hd_scenario *sc;
	struct worker *w;
	int n;
	struct hd_err *e;
	int shm; /* the barrier page's memfd, or -1 */
};

static int64_t
timeout_ns(void)
{
	const char *s = getenv("HDSIM_RANK_TIMEOUT");
	double v = s != NULL ? strtod(s, NULL) : 0;

	return (int64_t)((v > 0 ? v : HD_RANKS_TIMEOUT_S) * 1e9);
}

/* The environment for the workers: ours, with NCCL_NVLS_ENABLE=0 unless set. */
static char **
worker_env(void)
{
	size_t n = 0, i;
	char **env;

	while (environ[n] != NULL)
		n++;
	env = hd_xcalloc(n + 2, sizeof *env);
	for (i = 0; i < n; i++)
		env[i] = environ[i];
	if (getenv("NCCL_NVLS_ENABLE") == NULL)
		env[n] = (char *)"NCCL_NVLS_ENABLE=0";
	return env;
}

static int
spawn(struct coord *c, const char *exe, char **env)
{
	pid_t me = getpid();
	int r;

	for (r = 0; r < c->n; r++) {
		struct worker *w = &c->w[r];
		char rank[16], nranks[16], fd[16], shm[16];
		char *argv[] = { (char *)exe, (char *)HD_RANKS_WORKER_ARG, rank, nranks,
				 fd,          c->shm >= 0 ? shm : NULL,    NULL };
		sigset_t all, old;
		int sv[2];

		snprintf(rank, sizeof rank, "%d", r);
		snprintf(nranks, sizeof nranks, "%d", c->n);
		snprintf(fd, sizeof fd, "%d", WORKER_FD);
		snprintf(shm, sizeof shm, "%d", WORKER_SHM_FD);
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
			hd_err_set(c->e, HD_EXIT_FAIL, "", "socketpair for rank %d failed: %s", r,
				   strerror(errno));
			return -1;
		}
		/* The child must not run the coordinator's signal handlers (hdsim's
		 * SIGINT flag, a test harness's): signals stay blocked across the
		 * fork until the child has reset them. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		w->pid = fork();
		if (w->pid != 0)
			pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (w->pid < 0) {
			hd_err_set(c->e, HD_EXIT_FAIL, "", "fork for rank %d failed: %s", r,
				   strerror(errno));
			close(sv[0]);
			close(sv[1]);
			return -1;
		}
		if (w->pid == 0) {
			/* Only async-signal-safe calls until exec. */
			struct sigaction dfl;
			int sig;

			memset(&dfl, 0, sizeof dfl);
			dfl.sa_handler = SIG_DFL;
			for (sig = 1; sig < NSIG; sig++)
				sigaction(sig, &dfl, NULL);
			sigemptyset(&all);
			sigprocmask(SIG_SETMASK, &all, NULL);
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			if (getppid() != me) /* the coordinator died before that */
				_exit(127);
			if (sv[1] == WORKER_FD)
				fcntl(sv[1], F_SETFD, 0);
			else if (dup2(sv[1], WORKER_FD) < 0)
				_exit(127);
			if (c->shm >= 0 && dup2(c->shm, WORKER_SHM_FD) < 0)
				_exit(127);
			execve(exe, argv, env);
			_exit(127);
		}
		close(sv[1]);
		w->fd = sv[0];
		snprintf(w->phase, sizeof w->phase, "starting");
	}
	return 0;
}

static void
reap(struct worker *w, int64_t block_ns)
{
	int64_t until = hd_wire_now_ns() + block_ns;
	struct timespec ts = { 0, 5 * 1000 * 1000 };

	while (!w->reaped && w->pid > 0) {
		pid_t p = waitpid(w->pid, &w->status, WNOHANG);

		if (p == w->pid || (p < 0 && errno != EINTR)) {
			w->reaped = 1;
			break;
		}
		if (hd_wire_now_ns() >= until)
			break;
		nanosleep(&ts, NULL);
	}
}

/* End every rank still running: SIGTERM, a grace period, SIGKILL, reap. */
static void
end_all(struct coord *c)
{
	int r;

	for (r = 0; r < c->n; r++)
		if (c->w[r].pid > 0 && !c->w[r].reaped)
			kill(c->w[r].pid, SIGTERM);
	for (r = 0; r < c->n; r++)
		reap(&c->w[r], KILL_GRACE_NS / c->n);
	for (r = 0; r < c->n; r++)
		if (c->w[r].pid > 0 && !c->w[r].reaped) {
			kill(c->w[r].pid, SIGKILL);
			reap(&c->w[r], KILL_GRACE_NS);
		}
}

static void
describe_exit(const struct worker *w, char *buf, size_t n)
{
	if (!w->reaped)
		snprintf(buf, n, "closed its connection");
	else if (WIFSIGNALED(w->status))
		snprintf(buf, n, "died (killed by signal %d, %s)", WTERMSIG(w->status),
			 strsignal(WTERMSIG(w->status)));
	else if (WIFEXITED(w->status) && WEXITSTATUS(w->status) == 127)
		snprintf(buf, n, "could not start (exec failed)");
	else
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(w->status));
}

/* Every rank has sent GATHER: send them all everything. */
static int
release(struct coord *c)
{
	struct hd_wbuf all = { 0 };
	int r, rc = 0;

	hd_wbuf_u64(&all, (uint64_t)hd_wire_now_ns());
	for (r = 0; r < c->n; r++) {
		hd_wbuf_u32(&all, (uint32_t)c->w[r].nblob);
		hd_wbuf_bytes(&all, c->w[r].blob, c->w[r].nblob);
	}
	for (r = 0; r < c->n; r++) {
		if (hd_msg_send(c->w[r].fd, M_ALL, all.p, all.len) != 0)
			rc = -1; /* the rank died: its socket reports it next */
		free(c->w[r].blob);
		c->w[r].blob = NULL;
		c->w[r].nblob = 0;
		c->w[r].gathered = 0;
	}
	hd_wbuf_free(&all);
	return rc;
}

/* Handle one message from rank r: 0, or -1 on a failure (e set). */
static int
handle(struct coord *c, int r, int64_t tmo)
{
	struct worker *w = &c->w[r];
	unsigned char *p = NULL;
	uint32_t type = 0;
	size_t n = 0;
	char how[128];
	int r2;

	if (hd_msg_recv(w->fd, &type, &p, &n, hd_wire_now_ns() + tmo) != 0) {
		int timed_out = errno == ETIMEDOUT;

		close(w->fd);
		w->fd = -1;
		reap(w, KILL_GRACE_NS);
		describe_exit(w, how, sizeof how);
		hd_err_set(c->e, HD_EXIT_FAIL, "", "scenario '%s': rank %d %s while %s",
			   c->sc->name, r, timed_out ? "stopped mid-message" : how, w->phase);
		return -1;
	}
	switch (type) {
	case M_PHASE:
		snprintf(w->phase, sizeof w->phase, "%.*s", (int)n, (const char *)p);
		break;
	case M_GATHER:
		w->blob = p;
		w->nblob = n;
		w->gathered = 1;
		p = NULL;
		for (r2 = 0; r2 < c->n && c->w[r2].gathered; r2++)
			;
		if (r2 == c->n)
			release(c);
		break;
	case M_TRACE:
		w->trace = p;
		w->ntrace = n;
		p = NULL;
		snprintf(w->phase, sizeof w->phase, "finishing");
		break;
	case M_ERROR:
		hd_err_set(c->e, HD_EXIT_FAIL, "", "scenario '%s': %.*s", c->sc->name, (int)n,
			   (const char *)p);
		free(p);
		return -1;
	default:
		hd_err_set(c->e, HD_EXIT_FAIL, "",
			   "scenario '%s': rank %d sent a message of "
			   "unknown type %u",
			   c->sc->name, r, type);
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

/* No rank spoke for the timeout: say which ones the others wait for. */
static void
stalled(struct coord *c, int64_t tmo)
{
	struct hd_buf b;
	int r, any = 0;

	hd_buf_init(&b);
	for (r = 0; r < c->n; r++)
		if (c->w[r].fd >= 0 && !c->w[r].gathered && c->w[r].trace == NULL &&
		    strcmp(c->w[r].phase, BARRIER_PHASE) != 0) {
			hd_buf_printf(&b, "%srank %d (%s)", any ? ", " : "", r, c->w[r].phase);
			any = 1;
		}
	hd_err_set(c->e, HD_EXIT_FAIL, "",
		   "scenario '%s': no progress for %.0f s: %s; "
		   "set HDSIM_RANK_TIMEOUT=SECONDS for a longer wait",
		   c->sc->name, (double)tmo / 1e9, any ? b.s : "every rank is waiting");
	hd_buf_free(&b);
}

/* Serve the ranks until every one has sent its trace.  0, or -1 with e set. */
static int
serve(struct coord *c, volatile int *stop)
{
	struct pollfd *pf = hd_xcalloc((size_t)c->n, sizeof *pf);
	int64_t tmo = timeout_ns(), last = hd_wire_now_ns();
	int r, rc = -1;

	for (;;) {
		int done = 0, k;

		for (r = 0; r < c->n; r++) {
			pf[r].fd = c->w[r].trace != NULL ? -1 : c->w[r].fd;
			pf[r].events = POLLIN;
			pf[r].revents = 0;
			done += c->w[r].trace != NULL;
		}
		if (done == c->n)
			break;
		if (stop != NULL && *stop) {
			hd_err_set(c->e, 130, "",
				   "interrupted while running scenario '%s' on %d "
				   "ranks",
				   c->sc->name, c->n);
			goto out;
		}
		if (hd_wire_now_ns() - last > tmo) {
			stalled(c, tmo);
			goto out;
		}
		k = poll(pf, (nfds_t)c->n, 100);
		if (k < 0 && errno != EINTR)
			goto out;
		for (r = 0; k > 0 && r < c->n; r++) {
			if (pf[r].revents == 0)
				continue;
			if (handle(c, r, tmo) != 0)
				goto out;
			last = hd_wire_now_ns();
		}
	}
	rc = 0;
out:
	free(pf);
	return rc;
}

int
hd_ranks_run(const struct hd_scenario *sc, const struct hd_run_opts *o, const struct hd_sink *sink,
	     struct hd_err *e)
{
	struct coord c = { .sc = sc, .n = sc->nranks, .e = e, .shm = -1 };
	struct hd_wbuf msg = { 0 };
	char exe[PATH_MAX], why[256];
	char **env = NULL;
	ssize_t len;
	int r, rc = -1;

	if (!hd_ranks_fits(sc, why, sizeof why)) {
		hd_err_set(e, HD_EXIT_FAIL, "", "scenario '%s' %s", sc->name, why);
		return -1;
	}
	if (hd_ranks_mpi_size() > 0)
		return hd_ranks_mpi_run(sc, o, sink, e);
	len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len <= 0) {
		hd_err_set(e, HD_EXIT_FAIL, "",
			   "cannot find this program's own binary "
			   "(/proc/self/exe) to start the ranks: %s",
			   strerror(errno));
		return -1;
	}
	exe[len] = '\0';
	hd_wbuf_u32(&msg, (uint32_t)(o && o->warmup > 0 ? o->warmup : 1));
	hd_wbuf_u32(&msg, (uint32_t)(o && o->repeats > 0 ? o->repeats : 5));
	hd_wire_put_scenario(&msg, sc);
	c.w = hd_xcalloc((size_t)c.n, sizeof *c.w);
	for (r = 0; r < c.n; r++)
		c.w[r].fd = -1;
	env = worker_env();
	/* no shared page (an old kernel): barriers go through the sockets */
	c.shm = memfd_create("hdsim-barrier", MFD_CLOEXEC);
	if (c.shm >= 0) {
		/* above the fds the children get, so their dup2s cannot clobber it */
		int high = fcntl(c.shm, F_DUPFD_CLOEXEC, 16);

		close(c.shm);
		c.shm = high;
	}
	if (c.shm >= 0 && ftruncate(c.shm, sizeof(struct shm_barrier)) != 0) {
		close(c.shm);
		c.shm = -1;
	}
	if (spawn(&c, exe, env) != 0)
		goto out;
	for (r = 0; r < c.n; r++)
		hd_msg_send(c.w[r].fd, M_SCEN, msg.p, msg.len); /* a dead rank shows in serve */
	if (serve(&c, o ? o->stop : NULL) != 0)
		goto out;
	for (r = 0; r < c.n; r++)
		reap(&c.w[r], KILL_GRACE_NS);
	for (r = 0; r < c.n; r++) {
		if (!c.w[r].reaped || !WIFEXITED(c.w[r].status) ||
		    WEXITSTATUS(c.w[r].status) != 0) {
			char how[128];

			describe_exit(&c.w[r], how, sizeof how);
			hd_err_set(e, HD_EXIT_FAIL, "",
				   "scenario '%s': rank %d %s after sending "
				   "its spans",
				   sc->name, r, c.w[r].reaped ? how : "did not exit");
			goto out;
		}
	}
	/* Every rank finished: now, and only now, the spans go to the sink. */
	for (r = 0; r < c.n; r++) {
		struct hd_rbuf rb = { .p = c.w[r].trace, .len = c.w[r].ntrace };

		if (hd_wire_get_trace(&rb, sink, e) != 0)
			goto out;
	}
	rc = 0;
out:
	end_all(&c);
	for (r = 0; r < c.n; r++) {
		if (c.w[r].fd >= 0)
			close(c.w[r].fd);
		free(c.w[r].blob);
		free(c.w[r].trace);
	}
	free(c.w);
	free(env);
	if (c.shm >= 0)
		close(c.shm);
	hd_wbuf_free(&msg);
	return rc;
}

/* ---- the worker ------------------------------------------------------------------- */

struct pipe_boot {
	int fd, rank, nranks;
	pthread_mutex_t lock;    /* the watcher thread sends too */
	struct shm_barrier *bar; /* the shared page, or NULL */
};

static void
pb_send(struct pipe_boot *pb, uint32_t type, const void *p, size_t n)
{
	pthread_mutex_lock(&pb->lock);
	hd_msg_send(pb->fd, type, p, n);
	pthread_mutex_unlock(&pb->lock);
}

static int
pb_barrier(void *ctx, int64_t *release_ns, struct hd_err *e)
{
	struct pipe_boot *pb = ctx;
	unsigned gen = __atomic_load_n(&pb->bar->gen, __ATOMIC_ACQUIRE);
	unsigned long spins = 0;

	(void)e;
	if (__atomic_add_fetch(&pb->bar->count, 1, __ATOMIC_ACQ_REL) == (unsigned)pb->nranks) {
		int64_t t = hd_wire_now_ns();

		__atomic_store_n(&pb->bar->release_ns, t, __ATOMIC_RELAXED);
		__atomic_store_n(&pb->bar->count, 0, __ATOMIC_RELAXED);
		__atomic_add_fetch(&pb->bar->gen, 1, __ATOMIC_RELEASE);
		if (release_ns != NULL)
			*release_ns = t;
		return 0;
	}
	/* a rank that dies ends every rank (the coordinator's watchdog), so
	 * the wait needs no timeout of its own; the phase names it to it */
	pb_send(pb, M_PHASE, BARRIER_PHASE, strlen(BARRIER_PHASE));
	while (__atomic_load_n(&pb->bar->gen, __ATOMIC_ACQUIRE) == gen)
		if (++spins % 1024 == 0)
			sched_yield();
	/* the next barrier cannot overwrite it before this rank arrives there */
	if (release_ns != NULL)
		*release_ns = __atomic_load_n(&pb->bar->release_ns, __ATOMIC_RELAXED);
	pb_send(pb, M_PHASE, "measuring", strlen("measuring"));
	return 0;
}

static int
pb_allgather(void *ctx, const void *p, size_t n, struct hd_wbuf *all, int64_t *release_ns,
	     struct hd_err *e)
{
	struct pipe_boot *pb = ctx;
	unsigned char *m = NULL;
	uint32_t type = 0;
	size_t len = 0;
	struct hd_rbuf r;

	pb_send(pb, M_GATHER, p, n);
	if (hd_msg_recv(pb->fd, &type, &m, &len, 0) != 0 || type != M_ALL || len < 8) {
		free(m);
		hd_err_set(e, HD_EXIT_FAIL, "", "rank %d lost its coordinator", pb->rank);
		return -1;
	}
	r = (struct hd_rbuf){ .p = m, .len = len };
	*release_ns = (int64_t)hd_rbuf_u64(&r);
	hd_wbuf_bytes(all, m + 8, len - 8);
	free(m);
	return 0;
}

static void
pb_phase(void *ctx, const char *what)
{
	pb_send(ctx, M_PHASE, what, strlen(what));
}

static void
pb_fail(void *ctx, const char *msg)
{
	pb_send(ctx, M_ERROR, msg, strlen(msg));
}

int
hd_ranks_worker_main(int argc, char **argv)
{
	struct pipe_boot pb;
	struct hd_rank_boot b;
	struct hd_run_opts ro;
	struct hd_scenario *sc = NULL;
	struct hd_trace *t = hd_trace_new();
	struct hd_err e = { 0 };
	struct hd_wbuf tw = { 0 };
	struct hd_rbuf r;
	unsigned char *m = NULL;
	uint32_t type = 0;
	size_t len = 0;
	cpu_set_t cpus;
	int rc = 1, i;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "hdsim: %s is started by 'hdsim --real', not by hand\n",
			HD_RANKS_WORKER_ARG);
		hd_trace_free(t);
		return HD_EXIT_INPUT;
	}
	hd_rank_catch_term();
	/* Ctrl-C reaches the whole process group: the coordinator handles it
	 * and ends the ranks itself. */
	signal(SIGINT, SIG_IGN);
	/* The coordinator's thread may be pinned to one CPU (real_cuda.c pins it
	 * for single-GPU runs) and exec keeps that: free the rank, and NCCL's
	 * threads, to run anywhere the machine allows. */
	CPU_ZERO(&cpus);
	for (i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &cpus);
	sched_setaffinity(0, sizeof cpus, &cpus);
	memset(&pb, 0, sizeof pb);
	pb.fd = atoi(argv[4]);
	pb.rank = atoi(argv[2]);
	pthread_mutex_init(&pb.lock, NULL);
	memset(&b, 0, sizeof b);
	b.ctx = &pb;
	b.rank = pb.rank;
	b.nranks = atoi(argv[3]);
	b.device = b.rank;
	b.shared_clock = 1;
	b.allgather = pb_allgather;
	pb.nranks = b.nranks;
	if (argc == 6) {
		void *page = mmap(NULL, sizeof *pb.bar, PROT_READ | PROT_WRITE, MAP_SHARED,
				  atoi(argv[5]), 0);

		if (page != MAP_FAILED) {
			pb.bar = page;
			b.host_barrier = pb_barrier;
		}
	}
	b.phase = pb_phase;
	b.fail = pb_fail;
	if (hd_msg_recv(pb.fd, &type, &m, &len, 0) != 0 || type != M_SCEN) {
		fprintf(stderr, "hdsim: rank %d: no scenario from the coordinator\n", b.rank);
		goto out;
	}
	r = (struct hd_rbuf){ .p = m, .len = len };
	memset(&ro, 0, sizeof ro);
	ro.warmup = (int)hd_rbuf_u32(&r);
	ro.repeats = (int)hd_rbuf_u32(&r);
	if ((sc = hd_wire_get_scenario(&r, &e)) == NULL ||
	    hd_rank_execute(sc, &ro, &b, t, &e) != 0) {
		char *msg = hd_xasprintf("rank %d: %s", b.rank, e.msg);

		pb_fail(&pb, msg);
		free(msg);
		goto out;
	}
	hd_wire_put_trace(&tw, t);
	pb_send(&pb, M_TRACE, tw.p, tw.len);
	rc = 0;
out:
	free(m);
	hd_wbuf_free(&tw);
	hd_scenario_free(sc);
	hd_trace_free(t);
	close(pb.fd);
	if (pb.bar != NULL)
		munmap(pb.bar, sizeof *pb.bar);
	pthread_mutex_destroy(&pb.lock);
	return rc;
}
