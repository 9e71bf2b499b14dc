/* kray studio: the web files (tools/studio/web/), embedded at build time by cmake/embed.cmake
 * (one generated header per file). */
#include "studio.h"

#include <string.h>

#include "ks_web_index_html.h"
#include "ks_web_studio_css.h"
#include "ks_web_studio_js.h"
#include "ks_web_mri_js.h"
#include "ks_web_ct_js.h"
#include "ks_web_nc_js.h"
#include "ks_web_view_js.h"

static const ks_asset ks_assets[] = {
    {"index.html", "text/html; charset=utf-8", ks_web_index_html, sizeof ks_web_index_html},
    {"studio.css", "text/css; charset=utf-8", ks_web_studio_css, sizeof ks_web_studio_css},
    {"studio.js", "text/javascript; charset=utf-8", ks_web_studio_js, sizeof ks_web_studio_js},
    {"mri.js", "text/javascript; charset=utf-8", ks_web_mri_js, sizeof ks_web_mri_js},
    {"ct.js", "text/javascript; charset=utf-8", ks_web_ct_js, sizeof ks_web_ct_js},
    {"nc.js", "text/javascript; charset=utf-8", ks_web_nc_js, sizeof ks_web_nc_js},
    {"view.js", "text/javascript; charset=utf-8", ks_web_view_js, sizeof ks_web_view_js},
};

const ks_asset *ks_asset_find(const char *name)
{
    for (size_t i = 0; i < sizeof ks_assets / sizeof ks_assets[0]; i++)
        if (!strcmp(name, ks_assets[i].name)) return &ks_assets[i];
    return NULL;
}
