/*
 * runs.c - runs in the store: a run's description, its profile, machine and
 * claim results, stored in one transaction with its spans (spans.c) and its
 * repeats (repeats.c), listed, and read back checked (read.c) (see store.h).
 */
#include "config.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_priv.h"

static const char *
outcome_name(int outcome)
{
	return outcome > 0 ? "holds" : outcome == 0 ? "fails" : "unchecked";
}

static int
insert_claims(struct hd_store *s, int64_t run, const struct hd_store_claim *c, int n,
	      struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int i, rc = -1;

	if (n == 0)
		return 0;
	if (sqlite3_prepare_v2(
		s->db,
		"INSERT INTO claim_results (run_id, idx, text, expr, outcome, lhs, rhs, detail)"
		" VALUES (?,?,?,?,?,?,?,?)",
		-1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "sqlite3_prepare_v2(INSERT INTO claim_results)");
		return -1;
	}
	for (i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_int(st, 2, c[i].index);
		store_bind_text(st, 3, c[i].text ? c[i].text : "");
		store_bind_text(st, 4, c[i].expr ? c[i].expr : "");
		store_bind_text(st, 5, outcome_name(c[i].outcome));
		sqlite3_bind_double(st, 6, c[i].lhs);
		sqlite3_bind_double(st, 7, c[i].rhs);
		store_bind_text(st, 8, c[i].detail);
		if (store_step_done(s, st, "INSERT INTO claim_results", e) != 0)
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

int
hd_store_run_insert(struct hd_store *s, const struct hd_store_run *r, const struct hd_trace *t,
		    const struct hd_store_claim *claims, int nclaims, int64_t *run_id,
		    struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int64_t profile = 0, machine = 0, run;

	store_begin(s);
	if (store_may_write(s, e) != 0)
		return -1;
	if (store_exec(s, "BEGIN IMMEDIATE", "BEGIN IMMEDIATE", e) != 0)
		return -1;
	if (r->profile_name != NULL) {
		const char *v[] = { r->profile_name, r->profile_text ? r->profile_text : "" };

		profile = store_upsert_id(
		    s, "INSERT OR IGNORE INTO profiles (name, text) VALUES (?, ?)",
		    "SELECT id FROM profiles WHERE name = ? AND text = ?", v, 2, 2, e);
		if (profile < 0)
			goto rollback;
	}
	if (r->machine != NULL) {
		const struct hd_store_machine *m = r->machine;
		char count[16];
		const char *v[] = { m->hostname,     m->gpu_uuid,   m->driver,
				    m->cuda_runtime, m->nccl,       m->facts_json,
				    m->gpu_name,     m->pci_bus_id, count };

		snprintf(count, sizeof count, "%d", m->gpu_count);

		machine = store_upsert_id(
		    s,
		    "INSERT OR IGNORE INTO machines (hostname, gpu_uuid, driver, cuda_runtime,"
		    " nccl, facts, gpu_name, pci_bus_id, gpu_count) VALUES (?,?,?,?,?,?,?,?,?)",
		    "SELECT id FROM machines WHERE hostname IS ? AND gpu_uuid IS ? AND driver IS ?"
		    " AND cuda_runtime IS ? AND nccl IS ? AND facts IS ?",
		    v, 9, 6, e);
		if (machine < 0)
			goto rollback;
	}
	if (sqlite3_prepare_v2(
		s->db,
		"INSERT INTO runs (lesson, scenario, params, backend, source, profile_id, machine_id,"
		" pair_run, version, status, makespan_ps, warmup, repeats, timer, note)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		-1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "sqlite3_prepare_v2(INSERT INTO runs)");
		goto rollback;
	}
	store_bind_text(st, 1, r->lesson);
	store_bind_text(st, 2, r->scenario);
	store_bind_text(st, 3, r->params_json ? r->params_json : "{}");
	store_bind_text(st, 4, r->backend);
	store_bind_text(st, 5, r->source);
	if (profile > 0)
		sqlite3_bind_int64(st, 6, profile);
	if (machine > 0)
		sqlite3_bind_int64(st, 7, machine);
	if (r->pair_run > 0)
		sqlite3_bind_int64(st, 8, r->pair_run);
	store_bind_text(st, 9, PACKAGE_VERSION);
	store_bind_text(st, 10, r->status ? r->status : "ok");
	sqlite3_bind_int64(st, 11, t->makespan);
	sqlite3_bind_int(st, 12, r->warmup);
	sqlite3_bind_int(st, 13, r->repeats);
	store_bind_text(st, 14, r->timer);
	store_bind_text(st, 15, r->note);
	if (sqlite3_step(st) != SQLITE_DONE) {
		store_fail(s, e, "INSERT INTO runs");
		goto rollback;
	}
	sqlite3_finalize(st);
	st = NULL;
	run = sqlite3_last_insert_rowid(s->db);
	if (store_insert_spans(s, run, r, t, e) != 0 || store_insert_repeats(s, run, r, e) != 0 ||
	    insert_claims(s, run, claims, nclaims, e) != 0)
		goto rollback;
	if (store_exec(s, "COMMIT", "COMMIT", e) != 0)
		goto rollback;
	if (run_id != NULL)
		*run_id = run;
	return 0;
rollback:
	sqlite3_finalize(st);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int
hd_store_profile_insert(struct hd_store *s, const char *name, const char *text, int64_t *id,
			struct hd_err *e)
{
	const char *v[] = { name, text };
	int64_t got;

	store_begin(s);
	if (store_may_write(s, e) != 0)
		return -1;
	got = store_upsert_id(s, "INSERT OR IGNORE INTO profiles (name, text) VALUES (?, ?)",
			      "SELECT id FROM profiles WHERE name = ? AND text = ?", v, 2, 2, e);
	if (got < 0)
		return -1;
	if (id != NULL)
		*id = got;
	return 0;
}

int
hd_store_runs(struct hd_store *s, const char *lesson,
	      int (*fn)(void *ctx, const struct hd_store_run_row *row), void *ctx, struct hd_err *e)
{
	static const struct store_field fields[] = {
		{ 8, "makespan_ps", 0, HD_STORE_TIME_LIMIT - 1, 0, 0 },
	};
	sqlite3_stmt *st = NULL;
	int rc;

	store_begin(s);
	if (sqlite3_prepare_v2(s->db,
			       "SELECT r.id, r.lesson, r.scenario, r.backend, r.source, r.status,"
			       " coalesce(p.name, ''), r.created, r.makespan_ps,"
			       " (SELECT count(*) FROM spans WHERE run_id = r.id)"
			       " FROM runs r LEFT JOIN profiles p ON p.id = r.profile_id"
			       " WHERE ?1 IS NULL OR r.lesson = ?1 ORDER BY r.id DESC",
			       -1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "SELECT FROM runs");
		return -1;
	}
	store_bind_text(st, 1, lesson);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct hd_store_run_row row = { 0 };
		int64_t v[9];
		char what[48];

		row.id = sqlite3_column_int64(st, 0);
		snprintf(what, sizeof what, "run %lld", (long long)row.id);
		if (store_read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e) != 0)
			goto fail;
#define COPY_COL(field, col) \
	snprintf(row.field, sizeof row.field, "%s", \
		 sqlite3_column_text(st, col) ? (const char *)sqlite3_column_text(st, col) : "")
		COPY_COL(lesson, 1);
		COPY_COL(scenario, 2);
		COPY_COL(backend, 3);
		COPY_COL(source, 4);
		COPY_COL(status, 5);
		COPY_COL(profile, 6);
		COPY_COL(created, 7);
#undef COPY_COL
		row.makespan = v[8];
		row.nspans = sqlite3_column_int64(st, 9);
		if (fn(ctx, &row) != 0)
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		store_fail(s, e, "SELECT FROM runs");
		goto fail;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	return -1;
}

static void run_info_free(struct hd_store_run_info *ri);

/* The run's row: which column fills which string, and whether NULL is kept. */
static const struct {
	int col;
	const char *name;
	size_t off;
	int keep_null;
} run_texts[] = {
	{ 2, "lesson", offsetof(struct hd_store_run_info, lesson), 0 },
	{ 3, "scenario", offsetof(struct hd_store_run_info, scenario), 0 },
	{ 4, "params", offsetof(struct hd_store_run_info, params_json), 0 },
	{ 5, "backend", offsetof(struct hd_store_run_info, backend), 0 },
	{ 6, "source", offsetof(struct hd_store_run_info, source), 0 },
	{ 7, "profile name", offsetof(struct hd_store_run_info, profile_name), 1 },
	{ 8, "status", offsetof(struct hd_store_run_info, status), 0 },
	{ 9, "version", offsetof(struct hd_store_run_info, version), 0 },
	{ 10, "timer", offsetof(struct hd_store_run_info, timer), 1 },
	{ 11, "note", offsetof(struct hd_store_run_info, note), 1 },
	{ 12, "created", offsetof(struct hd_store_run_info, created), 0 },
}, machine_texts[] = {
	{ 17, "hostname", offsetof(struct hd_store_machine, hostname), 1 },
	{ 18, "gpu_name", offsetof(struct hd_store_machine, gpu_name), 1 },
	{ 19, "gpu_uuid", offsetof(struct hd_store_machine, gpu_uuid), 1 },
	{ 20, "pci_bus_id", offsetof(struct hd_store_machine, pci_bus_id), 1 },
	{ 21, "driver", offsetof(struct hd_store_machine, driver), 1 },
	{ 22, "cuda_runtime", offsetof(struct hd_store_machine, cuda_runtime), 1 },
	{ 23, "nccl", offsetof(struct hd_store_machine, nccl), 1 },
	{ 24, "facts", offsetof(struct hd_store_machine, facts_json), 1 },
};

/* The run's row into out (run_texts), its machine's when it has one. */
static int
read_run(struct hd_store *s, sqlite3_stmt *st, struct hd_store_run_info *out, struct hd_err *e)
{
	static const struct store_field fields[] = {
		{ 1, "pair_run", 0, INT64_MAX, 0, 0 },
		{ 13, "warmup", 0, INT_MAX, 0, 0 },
		{ 14, "repeats", 0, INT_MAX, 0, 0 },
		{ 15, "makespan_ps", 0, HD_STORE_TIME_LIMIT - 1, 0, 0 },
		{ 25, "gpu_count", 0, INT_MAX, 0, 0 },
	};
	int64_t v[26];
	char what[48];
	size_t i;

	out->id = sqlite3_column_int64(st, 0);
	snprintf(what, sizeof what, "run %lld", (long long)out->id);
	if (store_read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e) != 0)
		return -1;
	for (i = 0; i < HD_ARRAY_LEN(run_texts); i++)
		if (store_col_dup(s, st, run_texts[i].col, what, run_texts[i].name,
				  run_texts[i].keep_null, (char **)((char *)out + run_texts[i].off),
				  e) != 0)
			return -1;
	out->pair_run = v[1];
	out->warmup = (int)v[13];
	out->repeats = (int)v[14];
	out->makespan = v[15];
	out->has_machine = sqlite3_column_type(st, 16) != SQLITE_NULL;
	if (!out->has_machine)
		return 0;
	for (i = 0; i < HD_ARRAY_LEN(machine_texts); i++)
		if (store_col_dup(s, st, machine_texts[i].col, what, machine_texts[i].name, 1,
				  (char **)((char *)&out->machine + machine_texts[i].off), e) != 0)
			return -1;
	out->machine.gpu_count = (int)v[25];
	return 0;
}

/* The run's claims, by index, into out->claims. */
static int
read_claims(struct hd_store *s, int64_t run_id, struct hd_store_run_info *out, struct hd_err *e)
{
	static const struct store_field fields[] = {
		{ 0, "idx", 0, INT_MAX, 0, 0 },
	};
	static const char *const outcomes[] = { "fails", "holds", "unchecked" };
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	if (sqlite3_prepare_v2(
		s->db,
		"SELECT idx, text, expr, outcome, lhs, rhs, detail FROM claim_results"
		" WHERE run_id = ? ORDER BY idx",
		-1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "SELECT FROM claim_results");
		return -1;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct hd_store_claim *c;
		const char *oc;
		char what[64];
		int64_t v[1];
		int k;

		snprintf(what, sizeof what, "run %lld, claim %d", (long long)run_id, out->nclaims);
		out->claims = hd_xgrow(out->claims, &cap, (size_t)out->nclaims + 1,
				       sizeof *out->claims);
		c = &out->claims[out->nclaims++];
		memset(c, 0, sizeof *c);
		if (store_read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e) != 0 ||
		    store_col_dup(s, st, 1, what, "text", 0, (char **)&c->text, e) != 0 ||
		    store_col_dup(s, st, 2, what, "expr", 0, (char **)&c->expr, e) != 0 ||
		    store_col_dup(s, st, 6, what, "detail", 1, (char **)&c->detail, e) != 0 ||
		    (oc = store_read_text(s, st, 3, 0, what, "outcome", e)) == NULL)
			goto fail;
		for (k = 0; k < (int)HD_ARRAY_LEN(outcomes) && strcmp(oc, outcomes[k]) != 0; k++)
			;
		if (k == (int)HD_ARRAY_LEN(outcomes)) {
			store_bad_value(s, st, 3, what, "outcome", "not holds, fails or unchecked",
					e);
			goto fail;
		}
		c->index = (int)v[0];
		c->outcome = k < 2 ? k : -1;
		c->lhs = sqlite3_column_double(st, 4);
		c->rhs = sqlite3_column_double(st, 5);
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, e, "SELECT FROM claim_results");
		goto fail;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	return -1;
}

int
hd_store_run_info(struct hd_store *s, int64_t run_id, struct hd_store_run_info *out,
		  struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	store_begin(s);
	if (store_run_row(
		s,
		"SELECT r.id, coalesce(r.pair_run, 0), r.lesson, r.scenario, r.params, r.backend,"
		" r.source, p.name, r.status, r.version, r.timer, r.note, r.created, r.warmup,"
		" r.repeats, r.makespan_ps, r.machine_id, m.hostname, m.gpu_name, m.gpu_uuid,"
		" m.pci_bus_id, m.driver, m.cuda_runtime, m.nccl, m.facts, coalesce(m.gpu_count, 0)"
		" FROM runs r LEFT JOIN profiles p ON p.id = r.profile_id"
		" LEFT JOIN machines m ON m.id = r.machine_id WHERE r.id = ?",
		run_id, &st, e) != 0)
		return -1;
	rc = read_run(s, st, out, e);
	sqlite3_finalize(st);
	if (rc != 0 || read_claims(s, run_id, out, e) != 0 ||
	    hd_store_run_repeats(s, run_id, &out->reps, e) != 0) {
		hd_store_run_info_free(out);
		return -1;
	}
	return 0;
}

void
hd_store_run_info_free(struct hd_store_run_info *ri)
{
	if (ri != NULL)
		run_info_free(ri);
}

static void
run_info_free(struct hd_store_run_info *ri)
{
	char **str[] = { &ri->lesson, &ri->scenario,     &ri->params_json, &ri->backend,
			 &ri->source, &ri->profile_name, &ri->status,      &ri->version,
			 &ri->timer,  &ri->note,         &ri->created };
	const char **mstr[] = { &ri->machine.hostname, &ri->machine.gpu_name,
				&ri->machine.gpu_uuid, &ri->machine.pci_bus_id,
				&ri->machine.driver,   &ri->machine.cuda_runtime,
				&ri->machine.nccl,     &ri->machine.facts_json };
	size_t i;
	int k;

	for (i = 0; i < HD_ARRAY_LEN(str); i++)
		free(*str[i]);
	for (i = 0; i < HD_ARRAY_LEN(mstr); i++)
		free((char *)*mstr[i]);
	for (k = 0; k < ri->nclaims; k++) {
		free((char *)ri->claims[k].text);
		free((char *)ri->claims[k].expr);
		free((char *)ri->claims[k].detail);
	}
	free(ri->claims);
	hd_store_repeats_free(&ri->reps);
	memset(ri, 0, sizeof *ri);
}
