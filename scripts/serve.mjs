// `npm start`: serves the viewer with Vite's dev server on 127.0.0.1 and prints the URL.
import { createServer } from 'vite';

const server = await createServer({ server: { host: '127.0.0.1', port: Number(process.env.PORT) || 5173 } });
await server.listen();
server.printUrls();
console.log('Texscope is running; press Ctrl+C to stop.');
