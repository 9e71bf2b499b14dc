/* kray: multi-call command-line tool. `kray <tool> [options] <inputs> <outputs>`.
 * The dispatch table below is the one list of tools; each tool lives in its own file. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

typedef struct kc_tool {
    const char *name;
    const char *summary;
    int (*main)(int argc, char **argv);
} kc_tool;

/* The tools that divide their work over the processes of an MPI launch (docs/scaling.md). */
static const char *const kc_dist_tools[] = {"fdk",   "project", "backproject", "sirt",
                                            "cgls",  "ctreg",   "nufft",       "sim"};

static int kc_divides(const char *name)
{
    for (size_t i = 0; i < sizeof kc_dist_tools / sizeof *kc_dist_tools; i++)
        if (!strcmp(kc_dist_tools[i], name)) return 1;
    return 0;
}

/* Grouped: a row with main == NULL starts a group (its name is the heading). */
static const kc_tool kc_tools[] = {
    {"Files, phantoms and comparison", NULL, NULL},
    {"phantom",
     "analytic phantoms: Shepp-Logan 2-D/3-D, MR T1/T2/PD maps, exact sinogram, "
     "k-space, coil maps",
     kc_tool_phantom},
    {"convert", "convert between file formats by extension; render PNG/PGM images",
     kc_tool_convert},
    {"info", "format, dimensions, element type, statistics and header fields of files",
     kc_tool_info},
    {"metrics", "compare an image with a reference: MSE, PSNR, SSIM, NRMSE, max error",
     kc_tool_metrics},
    {"demo", "run the built-in demonstration and write images + an HTML report", kc_tool_demo},
    {"bench", "benchmark programs: timings, accuracy and peers, a table or JSON lines",
     kc_tool_bench},
    {"studio", "a local web application: simulate, reconstruct and view in the browser",
     kc_tool_studio},
    {"CT", NULL, NULL},
    {"fbp", "2-D filtered backprojection (parallel and fan beam) of a sinogram", kc_tool_fbp},
    {"fdk", "cone-beam FDK: cosine/Parker weights, ramp filter, voxel-driven backprojection",
     kc_tool_fdk},
    {"project", "cone-beam forward projection (Joseph, Siddon) or exact phantom projections",
     kc_tool_project},
    {"backproject", "cone-beam backprojection: matched (adjoint of project), fdk or voxel",
     kc_tool_backproject},
    {"sirt", "cone-beam SIRT reconstruction on the matched projector pair", kc_tool_sirt},
    {"cgls", "cone-beam CGLS reconstruction on the matched projector pair", kc_tool_cgls},
    {"ctreg", "regularised CT (TV, x >= 0): FISTA, PDHG, OS-SART, ASD-POCS; 2-D and cone beam",
     kc_tool_ctreg},
    {"MRI", NULL, NULL},
    {"traj", "k-space trajectories: Cartesian, radial, golden angle, spiral, koosh ball",
     kc_tool_traj},
    {"dcf", "density compensation: Voronoi, Pipe-Menon, analytic radial and spiral", kc_tool_dcf},
    {"nufft", "non-uniform FFT (Kaiser-Bessel gridding), forward / adjoint, CPU and CUDA",
     kc_tool_nufft},
    {"drft", "direct non-uniform Fourier transform (forward, adjoint, Q), CPU and CUDA",
     kc_tool_drft},
    {"goertzel", "centred 2-D DFT at points or the full image by the Goertzel recurrence",
     kc_tool_goertzel},
    {"recon", "Cartesian MRI: centred FFT, RSS / optimal coil combination, undersampling",
     kc_tool_recon},
    {"sense", "SENSE parallel imaging with g-factor maps and ESPIRiT maps (CPU, GPU)",
     kc_tool_sense},
    {"cgsense", "CG-SENSE reconstruction of non-Cartesian multi-coil k-space, CPU and CUDA",
     kc_tool_cgsense},
    {"lsrecon",
     "least-squares non-Cartesian MRI reconstruction by CG (Toeplitz, NUFFT or DrFT normal "
     "operator)",
     kc_tool_lsrecon},
    {"mrreg", "regularised MRI (l1-wavelet, TV, LLR; FISTA, ADMM, PDHG), Cartesian and "
     "non-Cartesian, in BART pics' conventions", kc_tool_mrreg},
    {"coils", "coil sensitivity maps of an MRXCAT loop array (Biot-Savart)", kc_tool_coils},
    {"coilcombine", "combine coil images: root-sum-of-squares or weighted by sensitivity maps",
     kc_tool_coilcombine},
    {"sim", "Bloch simulation of a Cartesian GRE / spin echo of a T1/T2/PD object", kc_tool_sim},
    {"fve", "Fourier velocity encoding: flow phantom, single-voxel velocity spectra, full recon",
     kc_tool_fve},
};
#define KC_NTOOLS ((int)(sizeof kc_tools / sizeof kc_tools[0]))

static void kc_list_tools(FILE *f)
{
    fprintf(f,
            "Usage: kray <tool> [options] <inputs> <outputs>\n"
            "       kray <tool> --help | kray --help | kray --version [--load]\n\n"
            "kray %s: reconstruction and simulation of medical images (CT, MRI) on GPUs "
            "and CPUs.\n",
            kr_version());
    for (int i = 0; i < KC_NTOOLS; i++) {
        if (!kc_tools[i].main)
            fprintf(f, "\n%s:\n", kc_tools[i].name);
        else
            fprintf(f, "  %-11s %s\n", kc_tools[i].name, kc_tools[i].summary);
    }
    fprintf(f, "\nBenchmarks (kray bench <name> [options]):\n ");
    for (int i = 0, col = 1; i < kc_bench_count(); i++) {
        int w = (int)strlen(kc_bench_name(i)) + 1;
        if (col + w > 90) {
            fprintf(f, "\n ");
            col = 1;
        }
        fprintf(f, " %s", kc_bench_name(i));
        col += w;
    }
    fprintf(f, "\n\nFile formats are chosen by extension: .cfl/.hdr (BART), .npy, .nii, .nii.gz, "
               ".mha/.mhd,\n.nrrd, .png (write), .pgm, .raw (with --dims/--dtype). Every tool takes "
               "--backend, --device,\n--threads, --precision, --quiet and --verbose. Exit "
               "status: 0 success, 1 bad input, 2 bad usage.\n");
}

/* Run tool t (or benchmark `bench`) with one hidden argument of kc_parse (--kc-table,
 * --kc-markdown); the tool prints and returns 0. */
static int kc_run_hidden(const kc_tool *t, const char *bench, const char *what)
{
    char *av[4];
    int ac = 0;
    av[ac++] = (char *)t->name;
    if (bench) av[ac++] = (char *)bench;
    av[ac++] = (char *)what;
    av[ac] = NULL;
    fflush(stdout);
    int r = t->main(ac, av);
    fflush(stdout);
    return r;
}

/* `kray help --options`: every option row of every tool and benchmark, tab-separated (the
 * vocabulary test reads it). `kray help --markdown`: the tool reference of docs/cli.md. */
static int kc_help_dump(int markdown)
{
    int r = 0;
    if (markdown) {
        printf("## Tools\n\n| tool | does |\n| --- | --- |\n");
        for (int i = 0; i < KC_NTOOLS; i++)
            if (kc_tools[i].main)
                printf("| [`%s`](#kray-%s) | %s |\n", kc_tools[i].name, kc_tools[i].name,
                       kc_tools[i].summary);
        printf("\nBenchmarks, `kray bench <name> [options]` (`kray bench <name> --help` for the "
               "options):\n\n| benchmark | measures |\n| --- | --- |\n");
        for (int i = 0; i < kc_bench_count(); i++)
            printf("| `%s` | %s |\n", kc_bench_name(i), kc_bench_summary(i));
        printf("\nSections of `kray demo` (`kray demo --list`; run some with `--only a,b`):\n\n```\n");
        fflush(stdout);
        char *av[] = {"demo", "--list", NULL};
        r |= kc_tool_demo(2, av);
        fflush(stdout);
        printf("```\n\n## Reference\n\nGenerated from the option tables by `kray help "
               "--markdown`; the common options are listed once, above.\n\n");
    }
    for (int i = 0; i < KC_NTOOLS; i++) {
        const kc_tool *t = &kc_tools[i];
        if (!t->main) {
            if (markdown) printf("## %s\n\n", t->name);
            continue;
        }
        if (t->main == kc_tool_bench) {
            if (markdown) {
                printf("### `kray bench`\n\n`kray bench <name> [options]`: see the list of "
                       "benchmarks above.\nTheir list options (`--cases`, `--backends`, "
                       "`--precisions`, `--directions`) take comma-separated\nnames; a list with "
                       "a name the benchmark does not know is refused, naming it, before\n"
                       "anything runs.\n\n");
                continue;
            }
            for (int b = 0; b < kc_bench_count(); b++)
                r |= kc_run_hidden(t, kc_bench_name(b), "--kc-table");
            continue;
        }
        r |= kc_run_hidden(t, NULL, markdown ? "--kc-markdown" : "--kc-table");
    }
    return r ? KC_EXIT_USAGE : 0;
}

static const kc_tool *kc_find_tool(const char *name)
{
    for (int i = 0; i < KC_NTOOLS; i++)
        if (kc_tools[i].main && !strcmp(kc_tools[i].name, name)) return &kc_tools[i];
    return NULL;
}

/* One of several processes of an MPI launch (`mpirun -n N kray <tool> ...`, docs/scaling.md):
 * MPI through kray's plugin; the tools that divide their work run on every process (which
 * agree on every failure, so all stop together), the others on rank 0 alone. Only rank 0
 * prints and writes. */
static int kc_main_dist(const kc_tool *t, int argc, char **argv)
{
    if (kr_dist_init(&argc, &argv) != KR_OK) {
        fprintf(stderr, "kray: %s\n", kr_last_error());
        return KC_EXIT_INPUT;
    }
    const int rank = kr_dist_rank(), n = kr_dist_size();
    if (rank > 0 && (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)))
        return KC_EXIT_INPUT;
    int r = 0;
    if (kc_divides(t->name)) {
        r = t->main(argc - 1, argv + 1);
    } else if (rank == 0) {
        kc_note(t->name, "note: %s runs in one process (rank 0 of %d); it does not divide its "
                "work over processes", t->name, n);
        r = t->main(argc - 1, argv + 1);
    }
    fflush(stdout);
    kr_dist_finalize();
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "kray: no tool given (usage: kray <tool> [options]; 'kray --help' lists "
                        "the tools)\n");
        return KC_EXIT_USAGE;
    }
    const char *a = argv[1];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
        kc_list_tools(stdout);
        return 0;
    }
    if (!strcmp(a, "help")) {
        if (argc < 3) {
            kc_list_tools(stdout);
            return 0;
        }
        if (!strcmp(argv[2], "--markdown") || !strcmp(argv[2], "--options"))
            return kc_help_dump(argv[2][2] == 'm');
        const kc_tool *t = kc_find_tool(argv[2]);
        if (!t) {
            fprintf(stderr, "kray: unknown tool '%s' (run 'kray --help' for the list)\n", argv[2]);
            return KC_EXIT_USAGE;
        }
        char *hargv[] = {argv[2], "--help", NULL};
        return t->main(2, hargv);
    }
    if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
        /* the optional parts are looked for, not loaded (that would cost tens of ms), unless
         * --load asks for it */
        const int load = argc > 2 && !strcmp(argv[2], "--load");
        if (argc > 2 + load) {
            fprintf(stderr, "kray: --version takes only --load (got '%s')\n", argv[2 + load]);
            return KC_EXIT_USAGE;
        }
        char parts[4096];
        printf("kray %s (%s)\n", kr_version(), kr_build_features());
        if (kr_optional_parts(parts, sizeof parts, load) > 0) {
            printf("optional parts, loaded when a call needs them:\n");
            for (char *l = parts, *e; *l; l = e + 1) {
                e = strchr(l, '\n');
                if (!e) break;
                printf("  %.*s\n", (int)(e - l), l);
            }
        }
        return 0;
    }
    if (a[0] == '-') {
        fprintf(stderr, "kray: unknown option '%s' (run 'kray --help')\n", a);
        return KC_EXIT_USAGE;
    }
    const kc_tool *t = kc_find_tool(a);
    if (!t) {
        fprintf(stderr, "kray: unknown tool '%s' (run 'kray --help' for the list)\n", a);
        return KC_EXIT_USAGE;
    }
    if (kr_dist_launched() <= 1) return t->main(argc - 1, argv + 1);
    return kc_main_dist(t, argc, argv);
}
