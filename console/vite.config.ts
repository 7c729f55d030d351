// The console is served by the service at /console (server/console.ts): assets under /console/assets
// with hashed names, cached for a year; index.html is asked again every time.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Mantine's styles and a few large views load only when needed; the first screen stays small.
    chunkSizeWarningLimit: 600,
  },
  server: {
    // `npm run dev -w console` beside `npm start`: the API and the payer pages from the service.
    proxy: { '/api': 'http://localhost:3000', '/payment': 'http://localhost:3000' },
  },
});
