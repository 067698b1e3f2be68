# CUDA half of gpu_probes (included when nvcc is found): the kernels for every listed arch as one
# fat binary, the runner, and the no-GPU tests (SASS contents, runner without a GPU).
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)

# Archs: sm_80, sm_89, sm_90a always; sm_100a and sm_120a where this nvcc has them (12.8+).
# Override for a quick build: -DFPCONFORM_GPU_ARCHS="90a".
set(_fpc_default_archs 80 89 90a)
if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.8)
  list(APPEND _fpc_default_archs 100a 120a)
endif()
set(FPCONFORM_GPU_ARCHS "${_fpc_default_archs}" CACHE STRING "SASS targets of the GPU probe kernels")
set(_fpc_gencode "")
foreach(arch IN LISTS FPCONFORM_GPU_ARCHS)
  # -gencode with code=sm_XXa: the -arch=sm_90a shorthand also runs a plain sm_90 pass, which
  # rejects wgmma (sm_90a only: PTX ISA, "Asynchronous Warpgroup Level Matrix Instructions").
  list(APPEND _fpc_gencode "SHELL:-gencode=arch=compute_${arch},code=sm_${arch}")
endforeach()
string(REPLACE ";" "," _fpc_arch_list "${FPCONFORM_GPU_ARCHS}")
message(STATUS "fpconform: GPU probe kernels for sm_{${_fpc_arch_list}}")

set(_fpc_kernel_sources
  kernels/registry.cu
  kernels/cvt_fp8.cu
  kernels/cvt_f16_bf16.cu
  kernels/cvt_tf32.cu
  kernels/cvt_fp6_fp4.cu
  kernels/scalar_f16.cu
  kernels/scalar_bf16.cu
  kernels/scalar_f32.cu
  kernels/mma_sync.cu
  kernels/wgmma.cu
  kernels/splitk.cu
  kernels/cublaslt_fp8.cu)
add_library(fpconform_gpu_kernels OBJECT ${_fpc_kernel_sources})
set_target_properties(fpconform_gpu_kernels PROPERTIES CUDA_ARCHITECTURES OFF CUDA_STANDARD 17
                                                       CUDA_STANDARD_REQUIRED ON POSITION_INDEPENDENT_CODE ON)
target_compile_options(fpconform_gpu_kernels PRIVATE ${_fpc_gencode}
                       $<$<COMPILE_LANGUAGE:CUDA>:-diag-suppress=177> $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wno-unused-parameter>)
target_include_directories(fpconform_gpu_kernels PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR}/kernels
                           ${PROJECT_SOURCE_DIR}/emu/core/include)

add_executable(fpconform-gpu-run runner/main.cpp runner/run_job.cpp $<TARGET_OBJECTS:fpconform_gpu_kernels>)
set_target_properties(fpconform-gpu-run PROPERTIES CUDA_ARCHITECTURES OFF CUDA_STANDARD 17 LINKER_LANGUAGE CUDA)
target_compile_definitions(fpconform-gpu-run PRIVATE FPCONFORM_GPU_ARCHS="${_fpc_arch_list}")
# The static runtime keeps the binary free of a libcudart of a given version: it is built here and
# run on the GPU machine.
target_link_libraries(fpconform-gpu-run PRIVATE fpconform_gpu_files CUDA::cudart_static ${CMAKE_DL_LIBS})
target_link_options(fpconform-gpu-run PRIVATE -static-libstdc++ -static-libgcc)

# cuobjdump/nvdisasm: the toolkit's, else NVIDIA's pip wheels that tools/install-deps.sh puts
# under .deps/cuda-tools (some CUDA images ship neither).
find_program(FPCONFORM_CUOBJDUMP cuobjdump HINTS ${CUDAToolkit_BIN_DIR}
             ${PROJECT_SOURCE_DIR}/.deps/cuda-tools/nvidia/cu13/bin
             ${PROJECT_SOURCE_DIR}/.deps/cuda-tools/nvidia/cuda_cuobjdump/bin)

add_test(NAME gpu_sass_expectations
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/sass_check.sh "${FPCONFORM_CUOBJDUMP}"
                 ${CMAKE_CURRENT_SOURCE_DIR}/tests/sass_expectations.txt "${_fpc_arch_list}"
                 "$<TARGET_OBJECTS:fpconform_gpu_kernels>")
set_tests_properties(gpu_sass_expectations PROPERTIES LABELS "unit" SKIP_RETURN_CODE 77)

add_test(NAME gpu_runner_catalog_matches_kernels COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/runner_list_check.sh $<TARGET_FILE:fpconform-gpu-run>)
set_tests_properties(gpu_runner_catalog_matches_kernels PROPERTIES LABELS "unit")

add_test(NAME gpu_runner_refuses_bad_plans COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/runner_bad_plan_check.sh
                                                   $<TARGET_FILE:fpconform-gpu-run> ${CMAKE_CURRENT_SOURCE_DIR}/plans)
set_tests_properties(gpu_runner_refuses_bad_plans PROPERTIES LABELS "unit")

# Runs a small plan on the GPU; skips (77) with the runner's own reason where there is none.
add_test(NAME gpu_runner_smoke COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/runner_smoke.sh $<TARGET_FILE:fpconform-gpu-run>
                                       ${CMAKE_CURRENT_SOURCE_DIR}/plans/smoke.plan ${CMAKE_CURRENT_BINARY_DIR}/smoke-results)
set_tests_properties(gpu_runner_smoke PROPERTIES LABELS "gpu" SKIP_RETURN_CODE 77)
