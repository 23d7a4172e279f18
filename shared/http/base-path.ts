/** The base path of every route: the stage's interface version. */
export const API_BASE_PATH = '/v1';
