/* libmpi: persistent requests (MPI_Send_init, MPI_Recv_init, MPI_Start), MPI_Cancel and buffered
 * sends (MPI_Bsend with MPI_Buffer_attach). One thread uses the library (MPI_THREAD_FUNNELED). */
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

/* ---- persistent requests ---- */

static int persistent(int send, const void* buf, int count, MPI_Datatype type, int peer, int tag,
                      MPI_Comm comm, MPI_Request* request) {
  if (!request) return MPI_ERR_REQUEST;
  *request = MPI_REQUEST_NULL;
  if (!hpm_comm_get(comm)) return MPI_ERR_COMM;
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  if (count < 0) return MPI_ERR_COUNT;
  if (tag < 0 && !(send == 0 && tag == MPI_ANY_TAG)) return MPI_ERR_TAG;
  /* (The peer is checked when the operation starts, as MPI_Isend and MPI_Irecv check it.) */
  *request = hpm_new_persistent_request();
  hpm_req* r = hpm_request(*request);
  r->p_send = send;
  r->p_buf = buf;
  r->p_count = count;
  r->p_type = type;
  r->p_peer = peer;
  r->p_tag = tag;
  r->p_comm = comm;
  return MPI_SUCCESS;
}

int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return persistent(1, buf, count, type, dest, tag, comm, request);
}

int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return persistent(2, buf, count, type, dest, tag, comm, request);
}

int MPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return persistent(3, buf, count, type, dest, tag, comm, request);
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return persistent(0, buf, count, type, source, tag, comm, request);
}

int MPI_Start(MPI_Request* request) {
  hpm_req* r = request ? hpm_request(*request) : NULL;
  if (!r || r->kind != HPM_REQ_PERSISTENT || r->active != MPI_REQUEST_NULL) {
    return MPI_ERR_REQUEST;
  }
  MPI_Request started = MPI_REQUEST_NULL;
  int error;
  switch (r->p_send) {
    case 0:
      error = MPI_Irecv((void*)r->p_buf, r->p_count, r->p_type, r->p_peer, r->p_tag, r->p_comm,
                        &started);
      break;
    case 2:
      error = MPI_Issend(r->p_buf, r->p_count, r->p_type, r->p_peer, r->p_tag, r->p_comm, &started);
      break;
    case 3:
      error = MPI_Ibsend(r->p_buf, r->p_count, r->p_type, r->p_peer, r->p_tag, r->p_comm, &started);
      break;
    default:
      error = MPI_Isend(r->p_buf, r->p_count, r->p_type, r->p_peer, r->p_tag, r->p_comm, &started);
      break;
  }
  hpm_request(*request)->active = started;
  return error;
}

int MPI_Startall(int count, MPI_Request requests[]) {
  for (int i = 0; i < count; ++i) {
    const int error = MPI_Start(&requests[i]);
    if (error) return error;
  }
  return MPI_SUCCESS;
}

/* ---- cancelling ---- */

int MPI_Cancel(MPI_Request* request) {
  hpm_req* r = request ? hpm_request(*request) : NULL;
  if (!r) return MPI_ERR_REQUEST;
  const MPI_Request target = r->kind == HPM_REQ_PERSISTENT ? r->active : *request;
  if (target != MPI_REQUEST_NULL) hpm_cancel_receive(target);
  return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status* status, int* flag) {
  if (!status || !flag) return MPI_ERR_ARG;
  *flag = status->hpm_cancelled != 0;
  return MPI_SUCCESS;
}

/* ---- buffered sends ---- */

/* The attached buffer: only its size is used (each message is copied into memory of its own,
 * and charged its bytes and MPI_BSEND_OVERHEAD against the size until its packets have left). */
static struct {
  void* base;
  int size;
  long used;
} attached;

typedef struct bsend {
  struct bsend* next;
  MPI_Request request;
  void* copy;
  long charge;
} bsend;

static bsend* pending;

void hpm_bsend_reap(void) {
  for (bsend** at = &pending; *at;) {
    bsend* b = *at;
    if (!hpm_complete(b->request)) {
      at = &b->next;
      continue;
    }
    hpm_wait(&b->request, MPI_STATUS_IGNORE);
    attached.used -= b->charge;
    free(b->copy);
    *at = b->next;
    free(b);
  }
}

int MPI_Buffer_attach(void* buffer, int size) {
  if (attached.base != NULL) return MPI_ERR_BUFFER;
  if (buffer == NULL || size < 0) return MPI_ERR_ARG;
  attached.base = buffer;
  attached.size = size;
  attached.used = 0;
  return MPI_SUCCESS;
}

static int all_left(void* arg) {
  (void)arg;
  hpm_bsend_reap();
  return pending == NULL;
}

int MPI_Buffer_detach(void* buffer_addr, int* size) {
  /* (Waits until every buffered message has left.) */
  hpm_wait_until(all_left, NULL);
  *(void**)buffer_addr = attached.base;
  *size = attached.size;
  attached.base = NULL;
  attached.size = 0;
  return MPI_SUCCESS;
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  if (!request) return MPI_ERR_REQUEST;
  *request = MPI_REQUEST_NULL;
  const int size = hpm_type_size(type);
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  if (count < 0) return MPI_ERR_COUNT;
  const long bytes = (long)count * size, charge = bytes + MPI_BSEND_OVERHEAD;
  hpm_bsend_reap();
  if (attached.base == NULL || attached.used + charge > attached.size) return MPI_ERR_BUFFER;
  bsend* b = malloc(sizeof *b);
  void* copy = malloc((size_t)bytes + 1);
  if (!b || !copy) {
    free(b);
    free(copy);
    return MPI_ERR_OTHER;
  }
  hpm_type_pack(buf, count, type, copy);
  const int error = MPI_Isend(copy, (int)bytes, MPI_BYTE, dest, tag, comm, &b->request);
  if (error) {
    free(b);
    free(copy);
    return error;
  }
  b->copy = copy;
  b->charge = charge;
  b->next = pending;
  pending = b;
  attached.used += charge;
  /* (The message is out of the caller's buffer: the request is complete.) */
  *request = hpm_new_done_request();
  return MPI_SUCCESS;
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  MPI_Request r;
  const int error = MPI_Ibsend(buf, count, type, dest, tag, comm, &r);
  return error ? error : hpm_wait(&r, MPI_STATUS_IGNORE);
}
