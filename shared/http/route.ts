/** A route of the API: its method and its path below the stage's base path. A type alone, which the declarations, the documentation's routes and the release check's probes name. */
export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Below the stage's base path (/v1); `{name}` is a path parameter. */
  readonly path: string;
}
