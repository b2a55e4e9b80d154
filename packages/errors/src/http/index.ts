export { errorHandler, notFound, type ErrorWording } from "./error-handler";
export { assignRequestId } from "./request-id";
