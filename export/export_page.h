/*
 * export_page.h - the frame of every HTML page hdsim writes (the report of
 * export_html.c, the class summary of export_class.c): doctype, head, style
 * sheet, body and heading; the pages fill in the rest.
 */
#ifndef HD_EXPORT_PAGE_H
#define HD_EXPORT_PAGE_H

#include "export/export_write.h"

/* Open a page titled `title` (also its <h1>) with style sheet `css` (rules,
 * each line ending in a newline): everything up to the body's content. */
void hd_export_page_open(struct hd_exw *w, const char *title, const char *css);
/* Close the body and the page hd_export_page_open opened. */
void hd_export_page_close(struct hd_exw *w);

#endif
