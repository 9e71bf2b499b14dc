/* libismrmrd and HDF5 through the optional-part loader (core/optional.h): the ISMRMRD sources
 * include this (through ismrmrd_internal.h) and keep calling both libraries by their own names,
 * which the macros below turn into calls through the symbols kri_part_load resolved: a
 * function becomes its table entry cast to its own pointer type (__typeof__ of the declaration
 * in the library's header), a data symbol (HDF5's predefined type ids, H5T_NATIVE_FLOAT_g...)
 * the object at its address. kri_ismrmrd_enter (ismrmrd_internal.h) loads the libraries
 * before any call. A symbol used here must be in KRI_ISMRMRD_FNS or KRI_ISMRMRD_VARS. */
#ifndef KRAY_ISMRMRD_LOAD_H
#define KRAY_ISMRMRD_LOAD_H

#include "internal.h"
#include "optional.h"

#include <hdf5.h>
#include <ismrmrd/dataset.h>
#include <ismrmrd/ismrmrd.h>

/* Load libismrmrd once; KR_ERR_NOT_SUPPORTED with one sentence when it cannot be loaded. */
kr_status kri_ismrmrd_load(void);
/* Function symbol i of the loaded table; the address of data symbol i. */
kri_fn kri_ismrmrd_fn(int i);
const void *kri_ismrmrd_var(int i);

#define KRI_ISM_FN(name) ((__typeof__(&name))kri_ismrmrd_fn(KRI_SYM_##name))
#define KRI_ISM_VAR(name) (*(const __typeof__(name) *)kri_ismrmrd_var(KRI_SYM_##name))

#define ismrmrd_append_acquisition KRI_ISM_FN(ismrmrd_append_acquisition)
#define ismrmrd_cleanup_acquisition KRI_ISM_FN(ismrmrd_cleanup_acquisition)
#define ismrmrd_close_dataset KRI_ISM_FN(ismrmrd_close_dataset)
#define ismrmrd_init_acquisition KRI_ISM_FN(ismrmrd_init_acquisition)
#define ismrmrd_init_dataset KRI_ISM_FN(ismrmrd_init_dataset)
#define ismrmrd_make_consistent_acquisition KRI_ISM_FN(ismrmrd_make_consistent_acquisition)
#define ismrmrd_open_dataset KRI_ISM_FN(ismrmrd_open_dataset)
#define ismrmrd_set_channel_on KRI_ISM_FN(ismrmrd_set_channel_on)
#define ismrmrd_set_error_handler KRI_ISM_FN(ismrmrd_set_error_handler)
#define ismrmrd_set_flag KRI_ISM_FN(ismrmrd_set_flag)
#define ismrmrd_write_header KRI_ISM_FN(ismrmrd_write_header)
#define H5Dclose KRI_ISM_FN(H5Dclose)
#define H5Dget_chunk_info_by_coord KRI_ISM_FN(H5Dget_chunk_info_by_coord)
#define H5Dget_create_plist KRI_ISM_FN(H5Dget_create_plist)
#define H5Dget_offset KRI_ISM_FN(H5Dget_offset)
#define H5Dget_space KRI_ISM_FN(H5Dget_space)
#define H5Dget_storage_size KRI_ISM_FN(H5Dget_storage_size)
#define H5Dget_type KRI_ISM_FN(H5Dget_type)
#define H5Dopen2 KRI_ISM_FN(H5Dopen2)
#define H5Dread KRI_ISM_FN(H5Dread)
#define H5Eclear2 KRI_ISM_FN(H5Eclear2)
#define H5Eset_auto2 KRI_ISM_FN(H5Eset_auto2)
#define H5Ewalk2 KRI_ISM_FN(H5Ewalk2)
#define H5Fclose KRI_ISM_FN(H5Fclose)
#define H5Fget_create_plist KRI_ISM_FN(H5Fget_create_plist)
#define H5Fopen KRI_ISM_FN(H5Fopen)
#define H5Lexists KRI_ISM_FN(H5Lexists)
#define H5Lget_info KRI_ISM_FN(H5Lget_info)
#define H5Pclose KRI_ISM_FN(H5Pclose)
#define H5Pcreate KRI_ISM_FN(H5Pcreate)
#define H5Pget_chunk KRI_ISM_FN(H5Pget_chunk)
#define H5Pget_external_count KRI_ISM_FN(H5Pget_external_count)
#define H5Pget_filter2 KRI_ISM_FN(H5Pget_filter2)
#define H5Pget_layout KRI_ISM_FN(H5Pget_layout)
#define H5Pget_nfilters KRI_ISM_FN(H5Pget_nfilters)
#define H5Pget_sizes KRI_ISM_FN(H5Pget_sizes)
#define H5Pget_userblock KRI_ISM_FN(H5Pget_userblock)
#define H5Pset_fclose_degree KRI_ISM_FN(H5Pset_fclose_degree)
#define H5Sclose KRI_ISM_FN(H5Sclose)
#define H5Screate_simple KRI_ISM_FN(H5Screate_simple)
#define H5Sget_simple_extent_dims KRI_ISM_FN(H5Sget_simple_extent_dims)
#define H5Sget_simple_extent_ndims KRI_ISM_FN(H5Sget_simple_extent_ndims)
#define H5Sget_simple_extent_type KRI_ISM_FN(H5Sget_simple_extent_type)
#define H5Sselect_hyperslab KRI_ISM_FN(H5Sselect_hyperslab)
#define H5Tarray_create2 KRI_ISM_FN(H5Tarray_create2)
#define H5Tclose KRI_ISM_FN(H5Tclose)
#define H5Tcopy KRI_ISM_FN(H5Tcopy)
#define H5Tcreate KRI_ISM_FN(H5Tcreate)
#define H5Tequal KRI_ISM_FN(H5Tequal)
#define H5Tget_array_dims2 KRI_ISM_FN(H5Tget_array_dims2)
#define H5Tget_array_ndims KRI_ISM_FN(H5Tget_array_ndims)
#define H5Tget_class KRI_ISM_FN(H5Tget_class)
#define H5Tget_fields KRI_ISM_FN(H5Tget_fields)
#define H5Tget_member_index KRI_ISM_FN(H5Tget_member_index)
#define H5Tget_member_name KRI_ISM_FN(H5Tget_member_name)
#define H5Tget_member_offset KRI_ISM_FN(H5Tget_member_offset)
#define H5Tget_member_type KRI_ISM_FN(H5Tget_member_type)
#define H5Tget_nmembers KRI_ISM_FN(H5Tget_nmembers)
#define H5Tget_offset KRI_ISM_FN(H5Tget_offset)
#define H5Tget_precision KRI_ISM_FN(H5Tget_precision)
#define H5Tget_size KRI_ISM_FN(H5Tget_size)
#define H5Tget_super KRI_ISM_FN(H5Tget_super)
#define H5Tinsert KRI_ISM_FN(H5Tinsert)
#define H5Tis_variable_str KRI_ISM_FN(H5Tis_variable_str)
#define H5Tset_size KRI_ISM_FN(H5Tset_size)
#define H5check_version KRI_ISM_FN(H5check_version)
#define H5free_memory KRI_ISM_FN(H5free_memory)
#define H5open KRI_ISM_FN(H5open)
#define H5P_CLS_FILE_ACCESS_ID_g KRI_ISM_VAR(H5P_CLS_FILE_ACCESS_ID_g)
#define H5T_C_S1_g KRI_ISM_VAR(H5T_C_S1_g)
#define H5T_IEEE_F32BE_g KRI_ISM_VAR(H5T_IEEE_F32BE_g)
#define H5T_IEEE_F32LE_g KRI_ISM_VAR(H5T_IEEE_F32LE_g)
#define H5T_NATIVE_DOUBLE_g KRI_ISM_VAR(H5T_NATIVE_DOUBLE_g)
#define H5T_NATIVE_FLOAT_g KRI_ISM_VAR(H5T_NATIVE_FLOAT_g)
#define H5T_NATIVE_UINT16_g KRI_ISM_VAR(H5T_NATIVE_UINT16_g)
#define H5T_NATIVE_UINT64_g KRI_ISM_VAR(H5T_NATIVE_UINT64_g)

#endif
