/* Optional parts, loaded when a call first needs them (docs/design.md, "Optional parts").
 *
 * kray links at start-up only what every call may use (libc, libm, OpenMP, FFTW, libpng, zlib;
 * the CUDA runtime is static). The large optional libraries are opened with dlopen by the first
 * call that needs them, and their functions reached through the symbol tables below:
 *   cufft    the CUDA toolkit's cuFFT (CUDA builds): plans and transforms on the device;
 *   ismrmrd  Debian's libismrmrd and, through it, HDF5: ISMRMRD raw data files;
 *   dcmtk    kray's own plug-in libkray_dcmtk.so (src/io/dicom_dcmtk.cpp, linked to DCMTK),
 *            looked for beside libkray or the program: DICOM files;
 *   mpi      kray's own plug-in libkray_mpi.so (src/plugins/mpi.c, linked to MPI), loaded with
 *            its symbols global (MPI's own components resolve against them) by a process that
 *            an MPI launcher started among several (core/dist.c, kray/dist.h).
 * The users keep calling the libraries' own names: cufft_load.h and ismrmrd_load.h map them to
 * typed wrappers over these tables. */
#ifndef KRAY_OPTIONAL_H
#define KRAY_OPTIONAL_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kri_part {
    KRI_PART_CUFFT = 0,
    KRI_PART_ISMRMRD,
    KRI_PART_DCMTK,
    KRI_PART_MPI,
    KRI_PART_COUNT
} kri_part;

/* A symbol as dlsym found it, to be cast to its function type by the typed wrappers. */
typedef void (*kri_fn)(void);

/* The symbols of each part, in table order. */
#define KRI_CUFFT_SYMS(X)                                                                          \
    X(cufftCreate) X(cufftDestroy) X(cufftExecC2C) X(cufftExecZ2Z) X(cufftMakePlanMany64)          \
    X(cufftSetAutoAllocation) X(cufftSetStream) X(cufftSetWorkArea) X(cufftXtSetJITCallback)
/* libismrmrd's functions for writing (reading goes through HDF5 itself, io/ismrmrd_h5.c), then
 * HDF5's functions and data symbols, found through libismrmrd's dependency on HDF5 */
#define KRI_ISMRMRD_FNS(X) \
    X(ismrmrd_append_acquisition) X(ismrmrd_cleanup_acquisition) X(ismrmrd_close_dataset) \
    X(ismrmrd_init_acquisition) X(ismrmrd_init_dataset) X(ismrmrd_make_consistent_acquisition) \
    X(ismrmrd_open_dataset) X(ismrmrd_set_channel_on) X(ismrmrd_set_error_handler) \
    X(ismrmrd_set_flag) X(ismrmrd_write_header) X(H5Dclose) X(H5Dget_chunk_info_by_coord) \
    X(H5Dget_create_plist) X(H5Dget_offset) X(H5Dget_space) X(H5Dget_storage_size) \
    X(H5Dget_type) X(H5Dopen2) X(H5Dread) X(H5Eclear2) X(H5Eset_auto2) X(H5Ewalk2) X(H5Fclose) \
    X(H5Fget_create_plist) X(H5Fopen) X(H5Lexists) X(H5Lget_info) X(H5Pclose) X(H5Pcreate) \
    X(H5Pget_chunk) X(H5Pget_external_count) X(H5Pget_filter2) X(H5Pget_layout) \
    X(H5Pget_nfilters) X(H5Pget_sizes) X(H5Pget_userblock) X(H5Pset_fclose_degree) X(H5Sclose) \
    X(H5Screate_simple) X(H5Sget_simple_extent_dims) X(H5Sget_simple_extent_ndims) \
    X(H5Sget_simple_extent_type) X(H5Sselect_hyperslab) X(H5Tarray_create2) X(H5Tclose) \
    X(H5Tcopy) X(H5Tcreate) X(H5Tequal) X(H5Tget_array_dims2) X(H5Tget_array_ndims) \
    X(H5Tget_class) X(H5Tget_fields) X(H5Tget_member_index) X(H5Tget_member_name) \
    X(H5Tget_member_offset) X(H5Tget_member_type) X(H5Tget_nmembers) X(H5Tget_offset) \
    X(H5Tget_precision) X(H5Tget_size) X(H5Tget_super) X(H5Tinsert) X(H5Tis_variable_str) \
    X(H5Tset_size) X(H5check_version) X(H5free_memory) X(H5open)
#define KRI_ISMRMRD_VARS(X) \
    X(H5P_CLS_FILE_ACCESS_ID_g) X(H5T_C_S1_g) X(H5T_IEEE_F32BE_g) X(H5T_IEEE_F32LE_g) \
    X(H5T_NATIVE_DOUBLE_g) X(H5T_NATIVE_FLOAT_g) X(H5T_NATIVE_UINT16_g) X(H5T_NATIVE_UINT64_g)
#define KRI_ISMRMRD_SYMS(X) KRI_ISMRMRD_FNS(X) KRI_ISMRMRD_VARS(X)
#define KRI_DCMTK_SYMS(X)                                                                          \
    X(kri_dcmtk_abi) X(kri_dcmtk_uid) X(kri_dcmtk_write_slice) X(kri_dcmtk_read)
/* the plug-in's one symbol is its table (a kri_dist_ops, dist_plugin.h): kri_part_data */
#define KRI_MPI_SYMS(X) X(kri_dist_plugin)

#define KRI_SYM_ENUM(name) KRI_SYM_##name,
enum { KRI_CUFFT_SYMS(KRI_SYM_ENUM) KRI_CUFFT_NSYM };
enum { KRI_ISMRMRD_SYMS(KRI_SYM_ENUM) KRI_ISMRMRD_NSYM };
enum { KRI_DCMTK_SYMS(KRI_SYM_ENUM) KRI_DCMTK_NSYM };
enum { KRI_MPI_SYMS(KRI_SYM_ENUM) KRI_MPI_NSYM };

/* Load part p once (thread-safe; later calls return at once) and set *fns to its symbols in
 * the order of its list. Failure is KR_ERR_NOT_SUPPORTED with one sentence naming the part,
 * the file and the loader's reason (and the same sentence on every later call). */
kr_status kri_part_load(kri_part p, const kri_fn **fns);
/* A data symbol of a loaded part (symbol i of its list) as the object address dlsym gave. */
const void *kri_part_data(const kri_fn *fns, int i);

#ifdef __cplusplus
}
#endif
#endif
