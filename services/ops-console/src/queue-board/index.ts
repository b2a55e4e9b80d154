export { queueBoardRouter, locateBullBoardUi, type QueueBoardOptions } from "./queue-board";
export { basicAuth, type BasicAuthOptions } from "./basic-auth";
