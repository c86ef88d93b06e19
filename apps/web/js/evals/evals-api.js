// The eval routes (/v1/evals): runs, their report and results, cancel. Errors are ApiError.

import { request } from "../core/api.js";

const id = encodeURIComponent;

export const listRuns = (limit = 50) => request("GET", `/v1/evals?limit=${limit}`);
export const getRun = (runId) => request("GET", `/v1/evals/${id(runId)}`);
export const getReport = (runId, compare) =>
  request("GET", `/v1/evals/${id(runId)}/report${compare ? `?compare=${id(compare)}` : ""}`);
export const getResults = (runId) => request("GET", `/v1/evals/${id(runId)}/results?limit=200`);
export const cancelRun = (runId) => request("POST", `/v1/evals/${id(runId)}/cancel`);
