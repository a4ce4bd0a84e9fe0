import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter } from 'react-router';
import { App } from './App';
import { preloadPage } from './pages';
import { retryDelayMs, shouldRetry } from './api/retry';
import { RateLimitNotice } from './components/RateLimitNotice';
import { DocumentTitle } from './components/DocumentTitle';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 429 waits its Retry-After and asks again; another 4xx is not retried; a 503 or a network failure is, twice.
      retry: shouldRetry,
      retryDelay: retryDelayMs,
      refetchOnWindowFocus: false,
    },
  },
});

preloadPage(window.location.pathname.replace(/^\/dashboard/, '') || '/');

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/dashboard">
        <DocumentTitle />
        <RateLimitNotice />
        <App />
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
