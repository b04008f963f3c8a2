/** The one pagination helper lives in `@crm/db` so the gateway's lists page the same way. */
export {
  creationOrder,
  type KeysetColumn,
  type KeysetValue,
  keysetAfter,
  paginate,
  paginateFixedList,
  paginateSorted,
} from "@crm/db/pagination";
