/*
 * cmd_show.c - `hdsim show LESSON`: a lesson's pages, questions, knobs,
 * scenarios (op by op) and claims; with --cuda, each scenario as the CUDA C
 * the real backend runs and as PyTorch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sanitize.h"
#include "base/units.h"
#include "cli/cmd.h"
#include "ir/opfacts.h"
#include "lang/lesson.h"
#include "real/cudagen.h"
#include "render/timeline.h"

/* The ops of a scenario, one per line, block bodies indented. */
static void
show_ops(struct hd_buf *b, const struct hd_scenario *sc)
{
	int ends[32], depth = 0, i; /* the op after each open block's body */
	char by[32];

	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];

		while (depth > 0 && ends[depth - 1] <= i)
			depth--;
		hd_buf_printf(b, "      line %-4d %*s", op->line, depth * 2, "");
		if (op->kind == HD_OP_REPEAT)
			hd_buf_printf(b, "repeat %llu times:", (unsigned long long)op->count);
		else if (op->kind == HD_OP_ON_RANK)
			hd_buf_printf(b, "on rank %d:", op->rank);
		else if (op->kind == HD_OP_GRAPH)
			hd_buf_printf(b, "graph %s, captured before the run, %llu nodes a launch:",
				      op->text, (unsigned long long)op->count);
		else if (op->kind == HD_OP_WORKERS && op->text != NULL)
			hd_buf_printf(b, "thread %s runs:", op->text);
		else if (op->kind == HD_OP_WORKERS)
			hd_buf_printf(b, "%llu threads each run:", (unsigned long long)op->count);
		else {
			hd_buf_puts(b, hd_op_api_name_sc(sc, op));
			if (op->label != NULL)
				hd_buf_printf(b, "  '%s'", op->label);
			if (op->bytes > 0)
				hd_buf_printf(b, "  %s", hd_fmt_bytes(by, sizeof by, op->bytes));
			if (op->kind == HD_OP_COPY)
				hd_buf_printf(b, " %s", hd_copy_kind_name(op->copy));
			if (op->kind == HD_OP_KERNEL)
				hd_buf_printf(b, "  %s kernel", hd_kernel_name(op->kernel));
			if (op->kind == HD_OP_KERNEL && op->flops > 0) {
				hd_fmt_flop(by, sizeof by, op->flops);
				hd_buf_printf(b, "  %s", by);
			}
			if ((op->kind == HD_OP_KERNEL || op->kind == HD_OP_HOST) &&
			    op->duration > 0)
				hd_buf_printf(b, "  %s", hd_fmt_time(by, sizeof by, op->duration));
			if (op->stream >= 0 && op->stream < sc->nstreams && !op->in_graph &&
			    (op->kind == HD_OP_KERNEL || op->kind == HD_OP_LAUNCH ||
			     op->kind == HD_OP_RECORD || op->kind == HD_OP_WAIT ||
			     op->kind == HD_OP_STREAM_SYNC || op->kind == HD_OP_PREFETCH ||
			     (op->kind == HD_OP_COPY && op->async)))
				hd_buf_printf(b, "  on %s", sc->streams[op->stream].name);
		}
		hd_buf_putc(b, '\n');
		/* a body counts its nested blocks' ops too: close it by its end */
		if ((hd_op_facts[op->kind].operands & HD_OPND_BODY) && op->body_len > 0 &&
		    depth < (int)HD_ARRAY_LEN(ends))
			ends[depth++] = i + 1 + op->body_len;
	}
}

/* show --cuda: each scenario as the CUDA C the real backend runs, then as PyTorch. */
static int
show_cuda(struct hd_cmd_ctx *x, const struct hd_lesson *l)
{
	struct hd_err e = { 0 };
	struct hd_buf b;
	double *knobs = hd_xcalloc((size_t)hd_lesson_nknobs(l) + 1, sizeof *knobs);
	int i, shown = 0, status = 0;

	hd_lesson_knob_defaults(l, knobs);
	for (i = 0; i < x->o->nsets; i++)
		if (hd_lesson_knob_set(l, knobs, x->o->sets[i], &e) != 0)
			goto fail;
	hd_buf_init(&b);
	for (i = 0; i < hd_lesson_nscenarios(l); i++) {
		struct hd_scenario *sc;

		if (x->o->scenario != NULL &&
		    strcmp(x->o->scenario, hd_lesson_scenario_name(l, i)) != 0)
			continue;
		/* the printers' form: an `if` on a loop index stays an `if` */
		if ((sc = hd_lesson_instantiate_written(l, i, knobs, &e)) == NULL) {
			hd_buf_free(&b);
			goto fail;
		}
		hd_buf_printf(&b, "%s==== %s: ", shown ? "\n" : "", sc->name);
		hd_san_term(&b, sc->title, false);
		hd_buf_puts(&b, " ====\n\n---- CUDA C ----\n");
		hd_cudagen_c(sc, &b);
		hd_buf_puts(&b, "\n---- PyTorch ----\n");
		hd_cudagen_torch(sc, &b);
		hd_scenario_free(sc);
		shown++;
	}
	if (shown == 0) {
		hd_buf_free(&b);
		hd_err_set(&e, HD_EXIT_INPUT, "--scenario", "lesson '%s' has no scenario '%s'",
			   hd_lesson_id(l), x->o->scenario);
		goto fail;
	}
	hd_cmd_put(x, &b);
	hd_buf_free(&b);
	free(knobs);
	return status;
fail:
	free(knobs);
	return hd_cmd_fail(x, &e);
}

int
hd_cmd_show(struct hd_cmd_ctx *x)
{
	struct hd_err e = { 0 };
	struct hd_buf b;
	const struct hd_lesson *l;
	double *knobs;
	char v[32], lo[32], hi[32];
	int idx, i, j;

	if ((idx = hd_catalog_find(x->cat, x->args[0], &e)) < 0)
		return hd_cmd_fail(x, &e);
	l = hd_catalog_get(x->cat, idx);
	if (x->o->cuda)
		return show_cuda(x, l);
	if (x->o->nsets > 0 || x->o->scenario != NULL) {
		hd_err_set(&e, HD_EXIT_INPUT, x->o->nsets > 0 ? "--set" : "--scenario",
			   "show takes --set and --scenario only with --cuda");
		return hd_cmd_fail(x, &e);
	}
	hd_buf_init(&b);
	hd_buf_printf(&b, "Lesson %d  %s", idx + 1, hd_lesson_title(l));
	if ((int)(strlen(hd_lesson_title(l)) + strlen(hd_lesson_id(l)) + 14) <= x->width)
		hd_buf_printf(&b, "  [%s]", hd_lesson_id(l));
	else
		hd_buf_printf(&b, "\nId        %s", hd_lesson_id(l));
	hd_buf_putc(&b, '\n');
	if (hd_lesson_part(l) != NULL && hd_lesson_part(l)[0] != '\0')
		hd_buf_printf(&b, "Part      %s\n", hd_lesson_part(l));
	hd_buf_printf(&b, "Source    %s\n",
		      hd_catalog_origin(x->cat, idx) != NULL &&
			      strcmp(hd_catalog_origin(x->cat, idx), "built-in") == 0 ?
			  hd_lesson_path(l) :
			  hd_catalog_origin(x->cat, idx));
	if (hd_lesson_summary(l) != NULL && hd_lesson_summary(l)[0] != '\0')
		hd_timeline_wrap(&b, "Summary   ", hd_lesson_summary(l), x->width, 10);
	if (hd_lesson_rule(l) != NULL && hd_lesson_rule(l)[0] != '\0') {
		hd_timeline_wrap(&b, "Rule      ", hd_lesson_rule(l), x->width, 10);
		if (hd_lesson_rule_url(l) != NULL && hd_lesson_rule_url(l)[0] != '\0')
			hd_buf_printf(&b, "          %s\n", hd_lesson_rule_url(l));
	}
	for (i = 0; i < hd_lesson_npages(l); i++) {
		const struct hd_page *p = hd_lesson_page(l, i);
		const char *s = p->text;
		hd_buf_printf(&b, "\n== %s ==\n", p->title);
		while (s != NULL && *s != '\0') {
			const char *nl = strchr(s, '\n');
			size_t n = nl != NULL ? (size_t)(nl - s) : strlen(s);
			hd_buf_puts(&b, "  ");
			hd_buf_putn(&b, s, n);
			hd_buf_putc(&b, '\n');
			s = nl != NULL ? nl + 1 : NULL;
		}
	}
	if (hd_lesson_nquestions(l) > 0)
		hd_buf_puts(&b, "\nQuestions (predict before you run it):\n");
	for (i = 0; i < hd_lesson_nquestions(l); i++) {
		const struct hd_question *q = hd_lesson_question(l, i);
		char first[16];
		snprintf(first, sizeof first, "  %d. ", i + 1);
		hd_timeline_wrap(&b, first, q->prompt, x->width, 5);
		for (j = 0; j < q->noptions; j++) {
			snprintf(first, sizeof first, "     %c) ", 'a' + (j % 26));
			hd_timeline_wrap(&b, first, q->options[j], x->width, 8);
		}
	}
	if (hd_lesson_nknobs(l) > 0)
		hd_buf_puts(&b, "\nKnobs (change with --set NAME=VALUE):\n");
	for (i = 0; i < hd_lesson_nknobs(l); i++) {
		const struct hd_knob *k = hd_lesson_knob(l, i);
		hd_fmt_quantity(v, sizeof v, k->dim, k->def);
		hd_fmt_quantity(lo, sizeof lo, k->dim, k->min);
		hd_fmt_quantity(hi, sizeof hi, k->dim, k->max);
		{
			char first[128];
			snprintf(first, sizeof first, "  %-12s %10s  (%s .. %s)  ", k->name, v, lo,
				 hi);
			hd_timeline_wrap(&b, first, k->text != NULL ? k->text : "", x->width, 6);
		}
	}
	knobs = hd_xcalloc((size_t)hd_lesson_nknobs(l) + 1, sizeof *knobs);
	hd_lesson_knob_defaults(l, knobs);
	hd_buf_puts(&b, "\nScenarios:\n");
	for (i = 0; i < hd_lesson_nscenarios(l); i++) {
		struct hd_err se = { 0 };
		struct hd_scenario *sc = hd_lesson_instantiate(l, i, knobs, &se);
		hd_buf_printf(&b, "  %s: %s\n", hd_lesson_scenario_name(l, i),
			      hd_lesson_scenario_title(l, i));
		if (sc != NULL)
			show_ops(&b, sc);
		else
			hd_buf_printf(&b, "      (cannot be built with the default knobs: %s)\n",
				      se.msg);
		hd_scenario_free(sc);
	}
	free(knobs);
	if (hd_lesson_nclaims(l) > 0)
		hd_buf_puts(&b, "\nClaims (checked by 'hdsim run'):\n");
	for (i = 0; i < hd_lesson_nclaims(l); i++) {
		const struct hd_claim *c = hd_lesson_claim(l, i);
		hd_timeline_wrap(&b, "  - ", c->text, x->width, 4);
		hd_timeline_wrap(&b, "      ", c->expr, x->width, 8);
	}
	hd_buf_printf(&b, "\nRun it: hdsim run %s\n", hd_lesson_id(l));
	hd_cmd_put(x, &b);
	hd_buf_free(&b);
	return 0;
}
