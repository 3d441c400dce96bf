// Migrations are plain .sql files; esbuild and vitest load them as text.
declare module '*.sql' {
  const text: string;
  export default text;
}
