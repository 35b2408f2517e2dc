/*
 * export_page.c - the frame of an HTML page (export_page.h).
 */
#include "export/export_page.h"

void
hd_export_page_open(struct hd_exw *w, const char *title, const char *css)
{
	hd_exw_puts(w,
		    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<title>");
	hd_exw_xml(w, title);
	hd_exw_puts(w, "</title>\n<style>\n");
	hd_exw_puts(w, css);
	hd_exw_puts(w, "</style>\n</head>\n<body>\n<h1>");
	hd_exw_xml(w, title);
	hd_exw_puts(w, "</h1>\n");
}

void
hd_export_page_close(struct hd_exw *w)
{
	hd_exw_puts(w, "</body>\n</html>\n");
}
