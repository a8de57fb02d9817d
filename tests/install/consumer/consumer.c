/* A C user of an installed jitgemm (the C ABI, <jitgemm/jitgemm.h>): the version (package, header,
   library), a status and message for a null argument, and a runtime, or "no GPU: <message>"
   where none can be made. */
#include <jitgemm/jitgemm.h>
#include <jitgemm/version.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  jitgemm_runtime runtime = NULL;
  jitgemm_status status;
  if (strcmp(jitgemm_version(), EXPECTED_VERSION) != 0 || strcmp(jitgemm_version(), JITGEMM_VERSION_STRING) != 0) {
    fprintf(stderr, "consumer_c: library version %s, package version %s, header version %s\n", jitgemm_version(),
            EXPECTED_VERSION, JITGEMM_VERSION_STRING);
    return 1;
  }
  printf("jitgemm %s\n", jitgemm_version());
  if (jitgemm_create(NULL, 0, NULL, NULL) != JITGEMM_INVALID_ARGUMENT) {
    fprintf(stderr, "consumer_c: jitgemm_create(NULL, ...) did not say invalid argument\n");
    return 1;
  }
  printf("invalid argument: %s\n", jitgemm_last_error());
  status = jitgemm_create(&runtime, 0, NULL, NULL);
  if (status == JITGEMM_CUDA_ERROR) {
    printf("no GPU: %s\n", jitgemm_last_error());
    return 0;
  }
  if (status != JITGEMM_SUCCESS) {
    fprintf(stderr, "consumer_c: jitgemm_create: status %d: %s\n", (int)status, jitgemm_last_error());
    return 1;
  }
  printf("runtime created\n");
  return jitgemm_destroy(runtime) == JITGEMM_SUCCESS ? 0 : 1;
}
